/// A GeoJSON feature (RFC 7946 §3.2): an optional geometry with properties and an optional identifier.
public struct Feature: Sendable, Hashable {
    /// The shape, or `nil` for a feature whose geometry is `null` (or has empty coordinates) in GeoJSON.
    public var geometry: Geometry?
    /// The feature's attributes (GeoJSON "properties"); empty when the document has `null` or none.
    public var properties: [String: JSONValue]
    /// The identifier: `.string` or `.number` (RFC 7946 §3.2), or `nil` when absent.
    public var id: JSONValue?

    /// Creates a feature.
    /// - Parameters:
    ///   - geometry: The shape, or `nil`. GeoJSON output expects WGS84 longitude/latitude coordinates.
    ///   - properties: Attributes (default none).
    ///   - id: An identifier, a string or a number (default none).
    public init(geometry: Geometry?, properties: [String: JSONValue] = [:], id: JSONValue? = nil) {
        self.geometry = geometry
        self.properties = properties
        self.id = id
    }
}
