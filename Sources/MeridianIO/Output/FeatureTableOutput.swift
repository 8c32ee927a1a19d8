import Foundation
import Meridian

/// Features written to a feature table through GDAL/OGR (`FeatureTableWriter` of MeridianFeatureData): a GeoPackage,
/// a shapefile or a FlatGeobuf, or a PostGIS table (`OutputFormat.isFeatureTable`), in the spatial reference the work
/// was done in, with the input's typed fields (a GDAL source's schema) or fields inferred from the properties
/// (`Field.fields(describing:)`, from the first batch). Written a batch at a time as they come, and atomically: the
/// file or table appears when `finish` commits it, and nothing is left when anything fails before.
public struct FeatureTableOutput {
    /// Where: the file (or `PG:` string) and the layer.
    public let output: OutputFile
    /// The spatial reference of every geometry.
    public let spatialReference: SpatialReference
    /// The geometry type of every feature, or nil for any (refused for a shapefile).
    public let geometryType: GeometryType?
    /// Whether the vertices have z.
    public let hasZ: Bool
    private var writer: FeatureTableWriter?

    /// An output; the table is created with the first batch.
    public init(_ output: OutputFile, spatialReference: SpatialReference, geometryType: GeometryType?, hasZ: Bool = false) {
        self.output = output
        self.spatialReference = spatialReference
        self.geometryType = geometryType
        self.hasZ = hasZ
    }

    /// The layer written: `--output-layer` (or `--layer` after `-o`), else the file's name without its extension.
    public var layerName: String {
        output.layer ?? URL(fileURLWithPath: output.path ?? "features").deletingPathExtension().lastPathComponent
    }

    /// Writes a batch of features (the table is created with the first: its fields checked against the format, and
    /// what the format adapts said on standard error).
    /// - Parameters:
    ///   - features: The batch.
    ///   - fields: The input's fields (a feature table's schema), or nil to infer them from the first batch.
    ///   - io: The command's streams.
    /// - Throws: `CommandError.failure` saying what the format cannot hold or which feature cannot be written.
    public mutating func add(_ features: [Feature], fields: [Field]?, io: CommandIO) throws(CommandError) {
        if writer == nil { writer = try open(FeatureTableOutput.fields(fields, describing: features), io: io) }
        guard let writer else { return }
        do { try writer.add(contentsOf: features) } catch { throw .failure(error.description) }
    }

    /// Commits the table (renames the file into place, or commits the database transaction); an empty table when
    /// no batch came.
    public mutating func finish(io: CommandIO) throws(CommandError) {
        if writer == nil { writer = try open([], io: io) }
        guard let writer else { return }
        do { try writer.finish() } catch { throw .failure(error.description) }
        self.writer = nil
    }

    /// Writes a union as one polygon feature with a `count` field (the table created here), its parts handed over
    /// a piece at a time: `produce` is given a function that puts each piece's rings into GDAL's geometry at once
    /// (`FeatureTableWriter.addPiece`), so the whole union is held by GDAL only; then the table is committed. When
    /// `produce` throws, nothing is written.
    /// - Parameters:
    ///   - count: How many buffers the union unites (its `count` field), 0 or more.
    ///   - io: The command's streams.
    ///   - produce: Makes the union, handing each piece to the function it is given.
    public mutating func writeUnion(
        count: Int, io: CommandIO,
        produce: (_ add: (Polygon) throws(CommandError) -> Void) throws(CommandError) -> Void
    ) throws(CommandError) {
        // A union of 100,000 circles or more is a geometry of 100 MB or more: written for large geometries.
        let writer = try open([Field(name: "count", type: .int64)], largeGeometries: count >= 100_000, io: io)
        self.writer = writer
        do {
            try writer.beginPolygon(properties: ["count": .number(Double(count))])
        } catch {
            throw .failure(error.description)
        }
        try produce { piece throws(CommandError) in
            do throws(FeatureDataError) { try writer.addPiece(piece) } catch { throw .failure(error.description) }
        }
        do { try writer.endPolygon() } catch { throw .failure(error.description) }
        try finish(io: io)
    }

    /// Writes features all at once.
    public static func write(_ features: [Feature], to output: OutputFile, spatialReference: SpatialReference,
                      geometryType: GeometryType?, hasZ: Bool = false, fields: [Field]?, io: CommandIO)
        throws(CommandError)
    {
        var table = FeatureTableOutput(output, spatialReference: spatialReference, geometryType: geometryType, hasZ: hasZ)
        try table.add(features, fields: fields, io: io)
        try table.finish(io: io)
    }

    /// The input's fields, followed by fields for the properties the features have beyond them (an operation's
    /// `piece` number, a union's `count`); all inferred (`Field.fields(describing:)`) when there is no schema.
    public static func fields(_ schema: [Field]?, describing features: [Feature]) -> [Field] {
        let inferred = Field.fields(describing: features)
        guard let schema else { return inferred }
        let names = Set(schema.map { $0.name })
        return schema + inferred.filter { !names.contains($0.name) }
    }

    /// The one geometry type of some features' geometries, or nil when they have several (or none).
    public static func geometryType(of geometries: [Geometry?]) -> GeometryType? {
        let types = Set(geometries.compactMap { $0.map(GeometryType.init(of:)) })
        return types.count == 1 ? types.first : nil
    }

    /// Creates the table (see `FeatureTableWriter`'s `largeGeometries`).
    private func open(_ fields: [Field], largeGeometries: Bool = false, io: CommandIO) throws(CommandError)
        -> FeatureTableWriter
    {
        guard let path = output.path else { throw .usage("\(output.format.name) is written to a file or database, not standard output") }
        let table = TableDescription(name: layerName, spatialReference: spatialReference.isUnspecified ? nil : spatialReference,
                                     geometryType: geometryType, hasZ: hasZ, fields: fields)
        do {
            let writer = try FeatureTableWriter(path: path, table: table, largeGeometries: largeGeometries)
            for note in writer.notes { io.note("note: \(note)") }
            return writer
        } catch {
            throw .failure(error.description)
        }
    }
}
