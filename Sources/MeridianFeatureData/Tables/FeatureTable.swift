import CGDAL
import MeridianCore
import MeridianEngine

/// A table of features in a GeoPackage, a shapefile, a FlatGeobuf or a PostGIS database, read through GDAL/OGR (the
/// ArcGIS Maps SDK's `FeatureTable`): its name, fields, geometry type and spatial reference, and its features by
/// ``queryFeatures(using:)``, streamed one at a time so that memory does not grow with the table.
///
/// Get one from ``GeoPackage/geoPackageFeatureTables``, ``ShapefileFeatureTable/init(fileURL:limits:)``,
/// ``FlatGeobufFeatureTable/init(fileURL:limits:)`` or ``FeatureDataSource/featureTable(named:)``. A table keeps its
/// source open while it (or a query result of it) lives. It is not safe to use from two threads at once.
public class FeatureTable {
    /// The open source.
    let dataset: GDALDataset
    /// The OGR layer (owned by `dataset`).
    let layer: OGRLayerH
    /// How each field is read.
    let fieldReaders: [OGRFieldReader]
    /// Bounds on features.
    let limits: FeatureDataLimits
    /// Incremented by each query: an older query result stops (they share the layer's read position).
    var queryGeneration = 0
    /// The query reading the layer, stopped when another starts.
    weak var activeQuery: FeatureQueryResult?

    /// The table's (layer's) name: a GeoPackage or PostGIS table, a shapefile's base name.
    public let tableName: String
    /// The format of the source.
    public let format: FeatureDataFormat
    /// The fields, in the source's order (not the feature ID or the geometry column).
    public let fields: [Field]
    /// Whether the table has a geometry column.
    public let hasGeometry: Bool
    /// The geometry type the table declares, or `nil` when it declares none or allows any.
    public let geometryType: GeometryType?
    /// Whether the table declares z values.
    public let hasZ: Bool
    /// The spatial reference of the geometries: from the source (a `.prj`, `gpkg_spatial_ref_sys`, the PostGIS SRID),
    /// `nil` when the source has none (a shapefile without `.prj`). Set it to say what the coordinates are when the
    /// source does not (it reinterprets them, it does not project them); geometries of a table without one are read
    /// with ``/MeridianCore/SpatialReference/unspecified``.
    public var spatialReference: SpatialReference?
    /// The number of features the source declares (a header or a metadata table; PostGIS counts them), or `nil`
    /// when it would take a pass over the data. Taken as a hint: it is not trusted for allocating anything.
    public let numberOfFeatures: Int?

    /// How messages name the source: its path, or a PostGIS connection string without its password.
    public var sourceName: String { dataset.location.displayName }

    /// Wraps a layer of an open dataset.
    /// - Throws: `FeatureDataError` when the table has more fields than the limits allow or a spatial reference
    ///   PROJ cannot use.
    init(dataset: GDALDataset, layer: OGRLayerH, limits: FeatureDataLimits) throws(FeatureDataError) {
        self.dataset = dataset
        self.layer = layer
        self.limits = limits
        self.format = dataset.location.format
        let name = String(cString: gdal.OGR_L_GetName(layer)!)
        tableName = name
        let definition = gdal.OGR_L_GetLayerDefn(layer)
        let fieldCount = Int(gdal.OGR_FD_GetFieldCount(definition))
        guard fieldCount <= limits.maximumFields else {
            throw .limitExceeded(source: dataset.location.displayName,
                                 reason: "layer '\(name)' has \(fieldCount) fields, more than the limit of \(limits.maximumFields)")
        }
        fieldReaders = (0..<fieldCount).map { OGRFieldReader(gdal.OGR_FD_GetFieldDefn(definition, Int32($0))!) }
        fields = fieldReaders.map { $0.field }
        let type = gdal.OGR_L_GetGeomType(layer)
        hasGeometry = type != wkbNone
        geometryType = FeatureTable.geometryType(of: type)
        hasZ = gdal.OGR_GT_HasZ(type) != 0
        let count = GDALRuntime.capturing { _ in gdal.OGR_L_GetFeatureCount(layer, 0) }
        numberOfFeatures = count >= 0 ? Int(count) : nil
        spatialReference = try FeatureTable.spatialReference(of: layer, source: dataset.location.displayName, table: name)
    }

    /// Starts reading the table's features from the first (ArcGIS's `queryFeatures(using:)`); a query started earlier
    /// on this table stops (the source has one read position per table).
    /// - Parameter parameters: How many features, and whether with their geometry.
    /// - Returns: A forward-only cursor over the features.
    public func queryFeatures(using parameters: QueryParameters = QueryParameters()) -> FeatureQueryResult {
        queryFeatures(using: parameters, allowingArrow: true)
    }

    /// A query that may (where the driver has one) or may not use GDAL's Arrow stream; the tests compare the two.
    func queryFeatures(using parameters: QueryParameters, allowingArrow: Bool) -> FeatureQueryResult {
        activeQuery?.stop()
        queryGeneration += 1
        GDALRuntime.capturing { _ in
            gdal.OGR_L_ResetReading(layer)
            var ignored = parameters.returnsGeometry ? [] : ["OGR_GEOMETRY"]
            if let wanted = parameters.outFields {
                ignored += fields.map { $0.name }.filter { !wanted.contains($0) }
            }
            _ = withCStringList(ignored) { list in
                gdal.OGR_L_SetIgnoredFields(layer, list.mutableConstant)
            }
        }
        let result = FeatureQueryResult(table: self, parameters: parameters, generation: queryGeneration,
                                        allowingArrow: allowingArrow)
        activeQuery = result
        return result
    }

    /// Meridian's name for an OGR layer geometry type; `nil` for none, unknown, collections and the other types.
    static func geometryType(of type: OGRwkbGeometryType) -> GeometryType? {
        switch gdal.OGR_GT_Flatten(type) {
        case wkbPoint: .point
        case wkbMultiPoint: .multipoint
        case wkbLineString, wkbMultiLineString, wkbCircularString, wkbCompoundCurve, wkbMultiCurve: .polyline
        case wkbPolygon, wkbMultiPolygon, wkbCurvePolygon, wkbMultiSurface: .polygon
        default: nil
        }
    }

    /// The layer's spatial reference as Meridian's.
    private static func spatialReference(of layer: OGRLayerH, source: String, table: String)
        throws(FeatureDataError) -> SpatialReference?
    {
        guard let srs = gdal.OGR_L_GetSpatialRef(layer) else { return nil }
        do {
            return try GDALRuntime.capturing { _ throws(EngineError) in try OGRSpatialReference.meridian(srs) }
        } catch {
            throw .cannotOpen(source: source, reason: "layer '\(table)': its spatial reference cannot be used: \(error)")
        }
    }
}

/// What ``FeatureTable/queryFeatures(using:)`` returns (ArcGIS's `QueryParameters`, the parts that apply to reading a
/// whole table).
public struct QueryParameters: Sendable, Hashable {
    /// The most features returned, or `nil` for all.
    public var maxFeatures: Int?
    /// Whether features come with their geometry (`false` reads attributes only, faster).
    public var returnsGeometry: Bool
    /// The fields whose values are read (ArcGIS's `outFields`), by name; `nil` for all, empty for none (geometries
    /// only: the fastest). Fields not read are absent from the features' attributes.
    public var outFields: [String]?
    /// How many features the source hands over at a time where it is read in batches (GDAL's Arrow stream), at
    /// most 65,536; `nil` for 65,536. Reading ``FeatureQueryResult/nextColumns(maximumCount:)`` batches of this
    /// size takes each one whole, without a copy.
    public var batchSize: Int?

    /// Creates query parameters.
    /// - Parameters:
    ///   - maxFeatures: The most features returned (default all).
    ///   - returnsGeometry: Whether to read geometries (default `true`).
    ///   - outFields: The fields to read (default all).
    ///   - batchSize: How many features the source hands over at a time (default 65,536).
    public init(maxFeatures: Int? = nil, returnsGeometry: Bool = true, outFields: [String]? = nil,
                batchSize: Int? = nil) {
        self.maxFeatures = maxFeatures
        self.returnsGeometry = returnsGeometry
        self.outFields = outFields
        self.batchSize = batchSize
    }
}
