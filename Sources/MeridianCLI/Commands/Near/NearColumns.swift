import Foundation
import Meridian
import MeridianIO

/// The columns of `near`'s output: the attributes of the sides it writes, renamed by one rule, and the columns it
/// adds (the distance and rank of a pair, a LEFT feature's `near_count`, a CSV's `wkt`).
///
/// The rule: an attribute keeps its name unless the other side written has an attribute of that name too, or the
/// output adds a column of that name; it then gets its side's suffix, `_left` or `_right` (geopandas' `sjoin`). A
/// name that still appears twice (LEFT has `a` and `a_left`, RIGHT has `a`) is refused, never overwritten.
struct NearColumns {
    /// One input's attributes: their names in order and their types.
    struct Side {
        /// The attribute names, in the input's order (a table's fields, a CSV's header without its coordinate
        /// columns), or sorted (GeoJSON properties).
        let names: [String]
        /// Their types, by name.
        let fields: [String: Field]

        /// The attributes of an input's features: a feature table's fields, a CSV's columns but the coordinates,
        /// or the properties its features have (types inferred from their values).
        init(_ input: FeatureInput) {
            if let schema = input.fields {
                names = schema.map { $0.name }
                fields = Dictionary(schema.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
                return
            }
            // (Columns come only from feature tables, which have their schema above.)
            let inferred = Dictionary(Field.fields(describing: input.features).map { ($0.name, $0) },
                                      uniquingKeysWith: { a, _ in a })
            if let header = input.header, let (x, y) = input.coordinateColumns {
                names = header.indices.filter { $0 != x && $0 != y }.map { header[$0] }
                fields = Dictionary(names.map { ($0, inferred[$0] ?? Field(name: $0, type: .text)) },
                                    uniquingKeysWith: { a, _ in a })
            } else {
                names = inferred.keys.sorted()
                fields = inferred
            }
        }
    }

    /// The output names of LEFT's attributes, by source name (empty when LEFT's are not written).
    let leftNames: [String: String]
    /// The output names of RIGHT's attributes, by source name (empty when RIGHT's are not written).
    let rightNames: [String: String]
    /// Every output column in order: LEFT's, RIGHT's, then the added ones.
    let names: [String]
    /// Their types, for a feature table.
    let fields: [Field]
    /// RIGHT's attribute names and the added columns: a LEFT attribute first seen after the columns were fixed
    /// (GeoJSON output only) is renamed against these.
    private let leftClashes: Set<String>

    /// The columns of an output.
    /// - Parameters:
    ///   - left: LEFT's attributes, or nil when the output does not hold them.
    ///   - right: RIGHT's attributes, or nil when the output does not hold them.
    ///   - added: The columns the output adds, with their types.
    /// - Throws: `CommandError.failure` when two columns would have one name.
    init(left: Side?, right: Side?, added: [Field]) throws(CommandError) {
        let addedNames = Set(added.map { $0.name })
        func renamed(_ side: Side?, other: Side?, suffix: String) -> [(String, String)] {
            let clashes = addedNames.union(other?.names ?? [])
            return (side?.names ?? []).map { ($0, clashes.contains($0) ? $0 + suffix : $0) }
        }
        let leftPairs = renamed(left, other: right, suffix: "_left")
        let rightPairs = renamed(right, other: left, suffix: "_right")
        var names: [String] = [], fields: [Field] = []
        for (pairs, side) in [(leftPairs, left), (rightPairs, right)] {
            for (source, name) in pairs {
                var field = side?.fields[source] ?? Field(name: source, type: .text)
                field.name = name
                names.append(name)
                fields.append(field)
            }
        }
        names += added.map { $0.name }
        fields += added
        var seen = Set<String>()
        for name in names where !seen.insert(name).inserted {
            throw .failure("the output would have two columns named '\(name)' (an attribute of LEFT or RIGHT renamed with _left or _right, or a column near adds, is also the name of another); rename one")
        }
        leftNames = Dictionary(leftPairs, uniquingKeysWith: { a, _ in a })
        rightNames = Dictionary(rightPairs, uniquingKeysWith: { a, _ in a })
        self.names = names
        self.fields = fields
        leftClashes = addedNames.union(right?.names ?? [])
    }

    /// The output properties of a LEFT feature (LEFT's columns), checked against the columns fixed from LEFT's
    /// schema or first batch.
    /// - Parameters:
    ///   - properties: The feature's properties.
    ///   - label: How messages name the feature.
    ///   - fixed: Whether the output's columns are fixed (CSV and feature tables): a property outside them is then
    ///     refused, never dropped. GeoJSON output takes it, renamed by the same rule.
    /// - Throws: `CommandError.failure` for a property the output cannot hold.
    func left(_ properties: [String: JSONValue], label: String, fixed: Bool) throws(CommandError)
        -> [String: JSONValue]
    {
        var out: [String: JSONValue] = [:]
        out.reserveCapacity(names.count)
        for (key, value) in properties {
            if let name = leftNames[key] {
                out[name] = value
                continue
            }
            guard !fixed else {
                throw .failure("\(label) has the property '\(key)', which LEFT's first features do not have: a .csv or table output's columns are those of LEFT's schema or first \(FeatureEncoding.batchSize) features (write .geojson or .geojsons, or give every feature the property)")
            }
            let name = leftClashes.contains(key) ? key + "_left" : key
            guard !names.contains(name) else {
                throw .failure("\(label): its property '\(key)' would be written as '\(name)', the name of another column; rename it")
            }
            out[name] = value
        }
        return out
    }

    /// Adds a RIGHT feature's properties (RIGHT's columns, all known) to a row.
    func addRight(_ properties: [String: JSONValue], to row: inout [String: JSONValue]) {
        for (key, value) in properties { row[rightNames[key] ?? key] = value }
    }

    /// The name of the distance column in a unit: `distance_m`, `distance_us_ft`, … (the unit's name, made a word,
    /// for a unit without a symbol).
    static func distanceColumn(_ unit: LinearUnit) -> String {
        let symbols: [(String, LinearUnit)] = [
            ("m", .meters), ("km", .kilometers), ("ft", .feet), ("us_ft", .usSurveyFeet), ("mi", .miles),
            ("us_mi", .usSurveyMiles), ("nmi", .nauticalMiles),
        ]
        if let (symbol, _) = symbols.first(where: { abs($0.1.metersPerUnit - unit.metersPerUnit) <= 1e-12 * unit.metersPerUnit }) {
            return "distance_" + symbol
        }
        let word = String(unit.name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
        return "distance_" + word
    }

    /// Appends a value as a CSV cell (quoted when CSV needs it): text as it is, numbers and booleans as JSON writes
    /// them, nothing for null.
    static func appendCell(_ value: JSONValue?, to out: inout ByteBuffer) {
        switch value {
        case nil, .null?: break
        case .string(let s)?: CSV.appendField(s, to: &out)
        case .number(let d)?: appendNumber(d, to: &out)
        case .bool(let b)?: out.append(b ? "true" : "false")
        case let other?: CSV.appendField(other.description, to: &out)
        }
    }

    /// Appends a number as `JSONValue`'s text writes it, without making that text: whole numbers below 10^16 in
    /// magnitude without a fraction (−0 as `0`), other finite ones as the shortest text that reads back to the same
    /// double; NaN and ±infinity through `JSONValue` itself (`null`). A cell of the near table is written for every
    /// pair, so this is most of the output's work.
    static func appendNumber(_ d: Double, to out: inout ByteBuffer) {
        if d.isFinite, d.magnitude < 1e16, d.rounded(.towardZero) == d {
            out.appendInteger(Int(d))
        } else if d.isFinite {
            out.appendNumber(d)
        } else {
            out.append(JSONValue.number(d).description)
        }
    }
}
