/// Why a geometry could not be built, read or used.
public enum GeometryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A coordinate is NaN or infinite; the message says where.
    case nonFiniteCoordinate(String)
    /// The geometry has no vertices where some are needed.
    case empty(String)
    /// A ring or path has too few vertices, or a ring is not closed.
    case malformed(String)
    /// Geometries that must share a spatial reference do not.
    case mixedSpatialReferences

    public var description: String {
        switch self {
        case .nonFiniteCoordinate(let m): "non-finite coordinate: \(m)"
        case .empty(let m): "empty geometry: \(m)"
        case .malformed(let m): "malformed geometry: \(m)"
        case .mixedSpatialReferences: "the geometries are in different spatial references"
        }
    }
}
