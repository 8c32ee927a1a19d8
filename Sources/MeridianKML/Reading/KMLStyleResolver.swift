/// Resolves `styleUrl` references and style maps into the style a placemark is drawn with.
///
/// Rules (Google Earth's): a later shared style with the same id replaces an earlier one ("last one wins");
/// a style map resolves through its `normal` (or `highlight`) pair, whose inline style overrides the referenced
/// one; a placemark's inline style overrides the shared style sub-style by sub-style. References to other
/// files (`other.kml#id`, `http://…#id`) are not fetched; cycles stop after 8 steps.
public struct KMLStyleResolver: Sendable {
    /// Shared style selectors by id.
    public private(set) var selectors: [String: KMLStyleSelector] = [:]

    /// Creates an empty resolver.
    public init() {}

    /// Creates a resolver knowing every style selector of a document (nested containers included).
    /// - Parameter document: The document.
    public init(document: KMLDocument) {
        for s in document.allStyleSelectors { add(s) }
    }

    /// Registers a shared style selector (replacing one with the same id).
    /// - Parameter selector: A style or style map with an id.
    public mutating func add(_ selector: KMLStyleSelector) {
        if let id = selector.id { selectors[id] = selector }
    }

    /// Whether a style URL points into the same document (`#id`).
    /// - Parameter url: A `styleUrl` value.
    public static func isLocal(_ url: String) -> Bool { url.hasPrefix("#") }

    /// The style a `styleUrl` designates, or `nil` when it is remote, unknown or cyclic.
    /// - Parameters:
    ///   - url: A `styleUrl` value, e.g. `#pin`.
    ///   - highlighted: Whether to follow style maps' `highlight` pair instead of `normal`.
    public func style(at url: String?, highlighted: Bool = false) -> KMLStyle? {
        resolve(url, key: highlighted ? "highlight" : "normal", depth: 0)
    }

    private func resolve(_ url: String?, key: String, depth: Int) -> KMLStyle? {
        guard let url, Self.isLocal(url), depth < 8, let selector = selectors[String(url.dropFirst())] else {
            return nil
        }
        switch selector {
        case .style(let s): return s
        case .styleMap(let m): return resolve(m, key: key, depth: depth + 1)
        }
    }

    private func resolve(_ map: KMLStyleMap, key: String, depth: Int) -> KMLStyle? {
        guard let pair = map.pair(key) ?? map.pairs.first else { return nil }
        let base = resolve(pair.styleUrl, key: key, depth: depth)
        guard let inline = pair.style else { return base }
        return (base ?? KMLStyle()).merged(with: inline)
    }

    /// The style a placemark is drawn with: its shared style (through style maps) overridden by its inline style,
    /// without `id`; `nil` when it has none.
    /// - Parameters:
    ///   - placemark: The placemark.
    ///   - highlighted: Whether to resolve the highlighted state.
    public func effectiveStyle(for placemark: KMLPlacemark, highlighted: Bool = false) -> KMLStyle? {
        let key = highlighted ? "highlight" : "normal"
        var style = resolve(placemark.styleUrl, key: key, depth: 0)
        if let m = placemark.styleMap, let s = resolve(m, key: key, depth: 1) {
            style = (style ?? KMLStyle()).merged(with: s)
        }
        if let inline = placemark.style { style = (style ?? KMLStyle()).merged(with: inline) }
        style?.id = nil
        return style
    }
}
