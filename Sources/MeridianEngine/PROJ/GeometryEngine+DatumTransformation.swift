import CPROJ
import Foundation
import MeridianCore

/// One coordinate operation PROJ knows between two spatial references (ArcGIS `DatumTransformation`): a datum
/// shift by Helmert parameters or a grid, with its accuracy and where it applies. Listed by
/// ``GeometryEngine/transformations(from:to:)`` and run by ``GeometryEngine/project(_:into:datumTransformation:)``.
public struct DatumTransformation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// PROJ's name, e.g. "Inverse of NAD27 to WGS 84 (33)".
    public let name: String
    /// The accuracy in meters recorded in PROJ's database; `nil` when unknown (a ballpark operation).
    public let accuracy: Double?
    /// The operation as a PROJ pipeline in longitude/latitude, easting/northing order (what runs).
    public let pipeline: String
    /// Whether it can run here: false when it needs a grid file that is not installed under `PROJ_DATA`.
    public let isAvailable: Bool
    /// Where the operation applies, when PROJ's database says.
    public let areaOfUse: AreaOfUse?

    public var description: String {
        "\(name) (accuracy: \(accuracy.map { "\($0) m" } ?? "unknown")\(isAvailable ? "" : ", needs a grid that is not installed"))"
    }
}

extension GeometryEngine {
    /// The operations PROJ knows from one spatial reference to another, most suitable first (PROJ's order: those
    /// whose area of use fits, then by accuracy), including those that need a grid file that is not installed
    /// (`isAvailable` false) — ArcGIS's `TransformationCatalog.transformationsBySuitability(from:to:)`.
    /// - Throws: `.spatialReferenceRequired` for ``/MeridianCore/SpatialReference/unspecified``, `.proj` when PROJ cannot list them,
    ///   `.fileRefused` when a definition names a file outside PROJ's data directories.
    public static func transformations(from source: SpatialReference, to target: SpatialReference)
        throws(EngineError) -> [DatumTransformation]
    {
        if source.isUnspecified || target.isUnspecified {
            throw .spatialReferenceRequired(operation: "listing transformations")
        }
        let context = PROJContext()
        let h = context.handle
        guard let s = proj_create(h, source.definition), let t = proj_create(h, target.definition) else {
            throw .proj("cannot create \(source) or \(target): \(context.lastMessage())")
        }
        let sourceCRS = PROJObject(s, context: context), targetCRS = PROJObject(t, context: context)
        guard let factory = proj_create_operation_factory_context(h, nil) else {
            throw .proj("cannot list operations: \(context.lastMessage())")
        }
        defer { proj_operation_factory_context_destroy(factory) }
        proj_operation_factory_context_set_grid_availability_use(h, factory, PROJ_GRID_AVAILABILITY_IGNORED)
        proj_operation_factory_context_set_spatial_criterion(h, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION)
        guard let list = proj_create_operations(h, sourceCRS.pointer, targetCRS.pointer, factory) else {
            throw .proj("no operation from \(source) to \(target): \(context.lastMessage())")
        }
        defer { proj_list_destroy(list) }
        var result: [DatumTransformation] = []
        for i in 0..<proj_list_get_count(list) {
            guard let raw = proj_list_get(h, list, i) else { continue }
            let op = PROJObject(raw, context: context)
            guard let n = proj_normalize_for_visualization(h, op.pointer) else { continue }
            let normalised = PROJObject(n, context: context)
            guard let text = proj_as_proj_string(h, normalised.pointer, PJ_PROJ_5, nil) else { continue }
            let accuracy = proj_coordoperation_get_accuracy(h, op.pointer)
            var w = 0.0, so = 0.0, e = 0.0, no = 0.0
            var areaName: UnsafePointer<CChar>?
            let area: AreaOfUse? = proj_get_area_of_use(h, op.pointer, &w, &so, &e, &no, &areaName) == 1 && w > -1000
                ? AreaOfUse(name: areaName.map { String(cString: $0) } ?? "", west: w, south: so, east: e, north: no) : nil
            result.append(DatumTransformation(
                name: proj_get_name(op.pointer).map { String(cString: $0) } ?? "unknown",
                accuracy: accuracy >= 0 ? accuracy : nil, pipeline: String(cString: text),
                isAvailable: proj_coordoperation_is_instantiable(h, op.pointer) == 1, areaOfUse: area))
        }
        try context.checkFileAccess()
        return result
    }

    /// Projects a geometry with a chosen operation instead of the one PROJ would pick (ArcGIS
    /// `project(_:into:datumTransformation:)`).
    /// - Parameters:
    ///   - geometry: Any geometry.
    ///   - spatialReference: The target; the operation must lead from the geometry's spatial reference to it.
    ///   - transformation: One of ``transformations(from:to:)`` for these two spatial references.
    /// - Throws: `.invalidArgument` for an operation that is not available here (a missing grid),
    ///   `.projectionFailed` naming the first vertex it cannot transform.
    public static func project(
        _ geometry: some GeometryConvertible, into spatialReference: SpatialReference,
        datumTransformation transformation: DatumTransformation
    ) throws(EngineError) -> Geometry {
        let g = geometry.geometry
        guard transformation.isAvailable else {
            throw .invalidArgument("\(transformation.name) needs a grid file that is not installed under PROJ_DATA")
        }
        return try transformVertices(g, into: spatialReference, pipeline: transformation.pipeline).geometry
    }

    /// Projects coordinates in bulk with a chosen operation (the fast path of
    /// ``project(_:into:datumTransformation:)`` for large point sets, as ``project(_:from:into:)`` is for PROJ's own
    /// choice, and interpolated in the same way where the operation is smooth).
    /// - Parameters:
    ///   - coordinates: Coordinates in `source`; replaced by the projected coordinates on success, unchanged when
    ///     this throws.
    ///   - source: Their spatial reference.
    ///   - target: The target spatial reference.
    ///   - transformation: One of ``transformations(from:to:)`` for `source` and `target`.
    /// - Returns: The operation that ran, as it is reported to users.
    /// - Throws: `.invalidArgument` for an operation that is not available here (a missing grid),
    ///   `.projectionFailed` naming the first vertex it cannot transform.
    @discardableResult
    public static func project(
        _ coordinates: inout [Coordinate], from source: SpatialReference, into target: SpatialReference,
        datumTransformation transformation: DatumTransformation
    ) throws(EngineError) -> ProjectionOperation {
        guard transformation.isAvailable else {
            throw .invalidArgument("\(transformation.name) needs a grid file that is not installed under PROJ_DATA")
        }
        try InterpolatedProjection.between(source, target, pipeline: transformation.pipeline).transform(&coordinates)
        return ProjectionOperation(name: transformation.name, accuracy: transformation.accuracy)
    }
}
