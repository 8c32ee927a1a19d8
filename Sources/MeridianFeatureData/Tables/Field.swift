import MeridianCore

/// The type of a field's values, with ArcGIS's names (`FieldType` of the ArcGIS Maps SDK) and two OGR types ArcGIS
/// lacks (``boolean``, ``json``).
///
/// Values travel in ``/MeridianCore/Feature/properties`` as GeoJSON properties do: numbers as `.number`, text as
/// `.string`, dates and times as ISO 8601 text (`2024-05-01`, `13:45:00`, `2024-05-01T13:45:00Z`), blobs as base64
/// text, booleans as `.bool`, JSON (and OGR's list types) as the JSON value itself, and no value as `.null`.
public enum FieldType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A 16-bit integer (OGR `Integer` with the `Int16` subtype).
    case int16
    /// A 32-bit integer (OGR `Integer`).
    case int32
    /// A 64-bit integer (OGR `Integer64`). Values beyond ±2^53 cannot be carried exactly in a GeoJSON number and are
    /// refused when read.
    case int64
    /// A single-precision real (OGR `Real` with the `Float32` subtype).
    case float32
    /// A double-precision real (OGR `Real`).
    case float64
    /// Text (OGR `String`); ``Field/length`` is its width where the format has one.
    case text
    /// A date and time (OGR `DateTime`): `YYYY-MM-DDTHH:MM:SS[.sss][Z|±HH:MM]`.
    case date
    /// A date without a time (OGR `Date`): `YYYY-MM-DD`.
    case dateOnly
    /// A time of day (OGR `Time`): `HH:MM:SS[.sss]`.
    case timeOnly
    /// Bytes (OGR `Binary`), carried as base64 text.
    case blob
    /// A boolean (OGR `Integer` with the `Boolean` subtype); not an ArcGIS type.
    case boolean
    /// Any JSON value (OGR `String` with the `JSON` subtype, and OGR's integer, real and string lists, read as JSON
    /// arrays); not an ArcGIS type.
    case json
}

/// A field (column) of a feature table: its name and type, with ArcGIS's names.
public struct Field: Sendable, Hashable, Codable {
    /// The field's name as the source spells it.
    public var name: String
    /// The type of its values.
    public var type: FieldType
    /// The width of a text field where the format has one (a shapefile's `.dbf`, a `VARCHAR(n)`); `nil` when the
    /// text may be of any length.
    public var length: Int?

    /// Creates a field.
    /// - Parameters:
    ///   - name: The field's name (non-empty).
    ///   - type: The type of its values.
    ///   - length: The width of a text field, or `nil` for any length.
    public init(name: String, type: FieldType, length: Int? = nil) {
        self.name = name
        self.type = type
        self.length = length
    }
}

/// The kind of geometry a feature table holds, with ArcGIS's names: ``point``, ``multipoint``, ``polyline`` (OGR line
/// strings and multi-line strings), ``polygon`` (OGR polygons and multi-polygons).
public enum GeometryType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Single points.
    case point
    /// Multipoints.
    case multipoint
    /// Polylines: line strings and multi-line strings.
    case polyline
    /// Polygons: polygons and multi-polygons.
    case polygon

    /// The type of a geometry (an envelope counts as a polygon).
    /// - Parameter geometry: Any geometry.
    public init(of geometry: Geometry) {
        switch geometry {
        case .point: self = .point
        case .multipoint: self = .multipoint
        case .polyline: self = .polyline
        case .polygon, .envelope: self = .polygon
        }
    }
}

/// What a feature table to be written holds: its name, fields, geometry type, spatial reference and whether vertices
/// have z (ArcGIS's `TableDescription`). A writer checks it against the format before anything is written.
public struct TableDescription: Sendable, Hashable {
    /// The table's (layer's) name: a GeoPackage table, a PostGIS table (`schema.table` allowed), or, for a shapefile
    /// or a FlatGeobuf, the layer name inside the file.
    public var name: String
    /// The fields, in order. Names must be unique (ignoring case) and non-empty.
    public var fields: [Field]
    /// The one geometry type of every feature, or `nil` for any (not allowed by a shapefile).
    public var geometryType: GeometryType?
    /// Whether vertices have z values.
    public var hasZ: Bool
    /// The spatial reference of every geometry, or `nil` for none (``/MeridianCore/SpatialReference/unspecified``).
    public var spatialReference: SpatialReference?

    /// Creates a table description.
    /// - Parameters:
    ///   - name: The table's name.
    ///   - spatialReference: The spatial reference of the geometries, or `nil` for none.
    ///   - geometryType: The geometry type of every feature, or `nil` for any.
    ///   - hasZ: Whether vertices have z values (default no).
    ///   - fields: The fields (default none).
    public init(
        name: String, spatialReference: SpatialReference?, geometryType: GeometryType?, hasZ: Bool = false,
        fields: [Field] = []
    ) {
        self.name = name
        self.spatialReference = spatialReference
        self.geometryType = geometryType
        self.hasZ = hasZ
        self.fields = fields
    }
}

extension Field {
    /// Fields for features that carry GeoJSON properties without a schema (read from GeoJSON or CSV), so that they can
    /// be written to a feature table: one field per property name, in alphabetical order (properties are unordered),
    /// typed by the values the features hold — booleans ``FieldType/boolean``; numbers ``FieldType/int32`` when all
    /// are whole and within 32 bits, ``FieldType/int64`` when all are whole and within ±2^53, else
    /// ``FieldType/float64``; text ``FieldType/text``; arrays and objects ``FieldType/json``; a property whose values
    /// are of several of these kinds ``FieldType/text`` (numbers and booleans then written as their JSON text). Nulls
    /// count for nothing; a property that is always null is text.
    /// - Parameter features: The features (all of them, or a first batch taken as representative).
    /// - Returns: The fields.
    public static func fields(describing features: some Sequence<Feature>) -> [Field] {
        var kinds: [String: Set<FieldType>] = [:]
        for feature in features {
            for (name, value) in feature.properties {
                var set = kinds[name, default: []]
                if let kind = kind(of: value) { set.insert(kind) }
                kinds[name] = set
            }
        }
        return kinds.keys.sorted().map { name in
            let set = kinds[name] ?? []
            let type: FieldType
            if set.count == 1, let only = set.first {
                type = only
            } else if !set.isEmpty, set.isSubset(of: [.int32, .int64, .float64]) {
                type = set.contains(.float64) ? .float64 : .int64
            } else {
                type = .text
            }
            return Field(name: name, type: type)
        }
    }

    /// The narrowest field type of one value; `nil` for null.
    private static func kind(of value: JSONValue) -> FieldType? {
        switch value {
        case .null: nil
        case .bool: .boolean
        case .number(let d):
            if d.rounded(.towardZero) == d, abs(d) <= 2_147_483_647 { .int32 }
            else if d.rounded(.towardZero) == d, abs(d) <= 9_007_199_254_740_992 { .int64 }
            else { .float64 }
        case .string: .text
        case .array, .object: .json
        }
    }
}
