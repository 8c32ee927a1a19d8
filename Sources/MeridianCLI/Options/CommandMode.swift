import MeridianIO

/// The modes of a command that does different jobs: `buffer` (planar, or geodesic with `--geodesic`), `project`
/// (projecting, or `--list-transformations`), `op` (one mode per operation) and `kml` (create, info, convert).
/// A command declares its mode with `@Mode`; each option declares the modes it applies to (`Modes`), and the parser
/// refuses an option given in a mode it does not apply to, so that no option is ever silently ignored.
protocol CommandMode: RawRepresentable, CaseIterable, Sendable where RawValue == String {
    /// How messages name the mode, e.g. "a --geodesic buffer" or "convex-hull" (the raw value by default).
    var title: String { get }
    /// One line for `--help` and the reference page (empty by default).
    var summary: String { get }
}

extension CommandMode {
    var title: String { rawValue }
    var summary: String { "" }
}

/// The modes of a command that an option applies to (or is required in): every mode, none, or some, kept as the
/// modes' raw values with their titles for messages.
struct Modes: Sendable {
    /// The raw values of the modes, or nil for every mode.
    let names: [String]?
    /// How messages name the modes, e.g. "densify, ellipse and sector".
    let title: String
    /// How help tags an option with them, e.g. "densify, ellipse, sector" or "all but the predicates".
    let tag: String

    /// Every mode (and a command without modes).
    static let all = Modes(names: nil, title: "every mode", tag: "all")
    /// No mode: for `required`, an option that is never required.
    static let none = Modes(names: [], title: "no mode", tag: "none")

    /// Some modes of one command.
    /// - Parameters:
    ///   - modes: The modes.
    ///   - title: How messages name them (default: their titles, e.g. "densify, ellipse and sector").
    ///   - tag: How help tags an option with them (default: their names, e.g. "densify, ellipse, sector").
    static func of<M: CommandMode>(_ modes: [M], title: String? = nil, tag: String? = nil) -> Modes {
        Modes(names: modes.map { $0.rawValue }, title: title ?? HelpText.list(modes.map { $0.title }, conjunction: "and"),
              tag: tag ?? modes.map { $0.rawValue }.joined(separator: ", "))
    }

    /// Some modes of one command, e.g. `.of(Operation.densify, .ellipse)`.
    static func of<M: CommandMode>(_ modes: M...) -> Modes { of(modes) }

    /// Whether `mode` is one of these; every set contains the nil mode of a command without modes, except `none`.
    func contains(_ mode: String?) -> Bool {
        guard let names else { return true }
        guard let mode else { return !names.isEmpty }
        return names.contains(mode)
    }

    /// Whether these are every mode.
    var isAll: Bool { names == nil }
    /// Whether these are no mode.
    var isNone: Bool { names?.isEmpty == true }
}
