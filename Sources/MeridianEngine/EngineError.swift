import MeridianCore

/// Why an engine operation failed. GEOS's and PROJ's own messages are kept in the cases that wrap them.
public enum EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// GEOS reported an error; the message is GEOS's own.
    case geos(String)
    /// PROJ reported an error; the message is PROJ's own.
    case proj(String)
    /// The spatial reference code, WKT or PROJ string is unknown to PROJ.
    case unknownSpatialReference(String, reason: String)
    /// A geometry is not valid (e.g. a self-intersecting ring); `reason` is GEOS's diagnosis.
    case invalidGeometry(reason: String)
    /// The input geometry itself is unusable (non-finite or too few coordinates).
    case badGeometry(GeometryError)
    /// A buffer distance is out of range; the message says which and why.
    case invalidDistance(String)
    /// A planar operation was asked of geographic (degree) coordinates.
    case geographicCoordinatesRefused(operation: String)
    /// Two geometries must share a spatial reference and do not.
    case spatialReferenceMismatch(SpatialReference, SpatialReference)
    /// The distance list does not match the geometry list (see `GeometryEngine.buffer(around:distances:shouldUnion:)`).
    case distanceCountMismatch(geometries: Int, distances: Int)
    /// A coordinate could not be transformed (outside the projection's domain).
    case projectionFailed(String)
    /// An overlay's result mixes dimensions (e.g. the union of a polygon and a point outside it), which one Meridian
    /// geometry cannot hold; the operation is refused rather than silently dropping the lower-dimension parts.
    case mixedDimensionResult(operation: String)
    /// Work run under a `WorkBudget` was stopped: its deadline passed or it was cancelled.
    case interrupted(String)
    /// Work run under a `WorkBudget` would make, or made, more vertices than the budget allows; the message says
    /// which operation and how many.
    case limitExceeded(String)
    /// An argument other than a geometry or a distance is out of range (a DE-9IM pattern, a segment length, a
    /// deviation); the message says which and why.
    case invalidArgument(String)
    /// The operation needs a real spatial reference (projection, geodesic work, an area of use) and the geometry has
    /// ``/MeridianCore/SpatialReference/unspecified`` plain planar coordinates.
    case spatialReferenceRequired(operation: String)
    /// A spatial reference names a file PROJ may not read (Meridian's PROJ file policy): a grid or init file outside PROJ's
    /// data directories, or one that is not a regular file. The path is as the definition wrote it.
    case fileRefused(String)

    public var description: String {
        switch self {
        case .geos(let m): "GEOS error: \(m)"
        case .proj(let m): "PROJ error: \(m)"
        case .unknownSpatialReference(let s, let reason): "unknown spatial reference '\(s)': \(reason)"
        case .invalidGeometry(let r): "invalid geometry: \(r) (GeometryEngine.makeValid can repair it)"
        case .badGeometry(let e): e.description
        case .invalidDistance(let m): "invalid distance: \(m)"
        case .geographicCoordinatesRefused(let op):
            "\(op) in a geographic spatial reference would be computed in degrees; project to a projected spatial "
                + "reference first, or use its geodesic counterpart on the ellipsoid (GeometryEngine.geodeticBuffer, "
                + "geodeticArea, geodeticLength, geodeticDistance; --geodesic on the command line)"
        case .spatialReferenceMismatch(let a, let b): "spatial references differ: \(a) and \(b)"
        case .distanceCountMismatch(let g, let d):
            "\(d) distances for \(g) geometries: give one distance for all, or exactly one per geometry"
        case .projectionFailed(let m): "projection failed: \(m)"
        case .mixedDimensionResult(let op):
            "the \(op) mixes polygons, lines and/or points, which one Meridian geometry cannot hold; "
                + "compute it separately for the polygons, the lines and the points"
        case .interrupted(let m): "interrupted: \(m)"
        case .limitExceeded(let m): "too large: \(m)"
        case .invalidArgument(let m): "invalid argument: \(m)"
        case .spatialReferenceRequired(let op):
            "\(op) needs a spatial reference; these coordinates have none (SpatialReference.unspecified)"
        case .fileRefused(let path):
            "the spatial reference names the file '\(path)', which is not read: grid and init files are read only "
                + "from PROJ's data directories (\(PROJFilePolicy.allowedDirectories.joined(separator: ", "))), "
                + "and only regular files"
        }
    }
}
