/// Features held as columns: a geometry, an identifier and one value per attribute for each feature, each kind in
/// one array — what a table reader hands over a batch at a time without building a ``Feature`` (and its dictionary
/// of properties) per row. ``feature(at:)`` gives the feature a row stands for. `geometries`, `ids` and each array of
/// `values` have one element per row.
public struct FeatureColumns: Sendable, Hashable {
    /// Each feature's geometry (`nil` for none), in row order.
    public var geometries: [Geometry?]
    /// Each feature's identifier (`nil` for none), in row order.
    public var ids: [JSONValue?]
    /// The attributes' names, in column order.
    public let names: [String]
    /// Each attribute's values, in row order: `values[column][row]` (`.null` for a null value).
    public var values: [[JSONValue]]

    /// The number of features.
    public var count: Int { geometries.count }

    /// Empty columns for attributes named `names`.
    /// - Parameter names: The attributes' names, in column order (each once).
    public init(names: [String]) {
        geometries = []
        ids = []
        self.names = names
        values = Array(repeating: [], count: names.count)
    }

    /// Features as columns, each of which has a property (perhaps `.null`) for every name and no other — a table's
    /// rows read feature by feature.
    /// - Parameters:
    ///   - names: The attributes' names, in column order.
    ///   - features: The features, in row order.
    public init(names: [String], features: [Feature]) {
        self.init(names: names)
        geometries = features.map { $0.geometry }
        ids = features.map { $0.id }
        for c in names.indices { values[c] = features.map { $0.properties[names[c]] ?? .null } }
    }

    /// The value of the attribute named `name` in row `row`, `nil` when there is no such attribute.
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - row: The row, 0 ..< `count`.
    public func value(named name: String, row: Int) -> JSONValue? {
        names.firstIndex(of: name).map { values[$0][row] }
    }

    /// The properties of row `row`: every attribute's value, by name.
    /// - Parameter row: The row, 0 ..< `count`.
    public func properties(at row: Int) -> [String: JSONValue] {
        var properties: [String: JSONValue] = [:]
        properties.reserveCapacity(names.count)
        for (c, name) in names.enumerated() { properties[name] = values[c][row] }
        return properties
    }

    /// The feature row `row` stands for.
    /// - Parameter row: The row, 0 ..< `count`.
    public func feature(at row: Int) -> Feature {
        Feature(geometry: geometries[row], properties: properties(at: row), id: ids[row])
    }

    /// Every row as a feature, in order.
    public var features: [Feature] { (0..<count).map { feature(at: $0) } }

    /// Appends the rows of other columns with the same names.
    /// - Parameter other: Columns whose `names` equal these.
    public mutating func append(contentsOf other: FeatureColumns) {
        precondition(other.names == names, "columns are joined by the same names")
        geometries += other.geometries
        ids += other.ids
        for c in values.indices { values[c] += other.values[c] }
    }

    /// Rows `range` as their own columns.
    public func slice(_ range: Range<Int>) -> FeatureColumns {
        var part = FeatureColumns(names: names)
        part.geometries = Array(geometries[range])
        part.ids = Array(ids[range])
        part.values = values.map { Array($0[range]) }
        return part
    }
}
