import MeridianCore

/// Why an engine operation failed. GEOS's and PROJ's own messages are kept in the cases that wrap them.
///
/// An error that concerns one item of the operation's input (a geometry of a list, a vertex of a coordinate array)
/// comes as ``located(_:at:)``: the error itself and its ``Location``, so a caller can name the item its own way
/// (a feature's label, a row of a file) with ``description(naming:)``, without reading the message:
///
/// ```swift
/// do {
///     let buffers = try GeometryEngine.buffer(around: parcels, distances: [-5])
/// } catch {
///     print(error.description(naming: { location in location.geometry.map { parcelNames[$0] } }))
///     if case .invalidDistance = error.unlocated { … }
/// }
/// ```
///
/// Its `description` names the item by position ("invalid distance: geometry 3: …").
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
    /// The error `error` concerns the item at `location` of the operation's input: the geometry (and vertex) that
    /// failed. Match ``unlocated`` to ask what went wrong, whether or not the error is located.
    indirect case located(EngineError, at: Location)

    /// The error with the item it concerns named by position ("invalid distance: geometry 3: …").
    public var description: String { description(naming: { _ in nil }) }

    /// The description with the item the error concerns named by `name` (a feature's label: "invalid distance:
    /// feature 3 (line 5): …"), or by position where `name` returns nil. The name takes the place the position has
    /// in ``description``.
    /// - Parameter name: The name of the item at a location, nil for its position (the location's `description`).
    public func description(naming name: (Location) -> String?) -> String {
        guard case .located(let error, let location) = self else { return message }
        let subject = name(location) ?? location.description
        return error.naming(subject)?.message ?? "\(subject): \(error.message)"
    }

    /// Where the error arose, if it concerns one item of the operation's input.
    public var location: Location? {
        if case .located(_, let location) = self { location } else { nil }
    }

    /// The error without its location: the case to match (`.invalidDistance`, `.projectionFailed`, …).
    public var unlocated: EngineError {
        if case .located(let error, _) = self { error.unlocated } else { self }
    }

    /// The error located at `location` (replacing any location it had).
    /// - Parameter location: The item the error concerns.
    public func at(_ location: Location) -> EngineError {
        .located(unlocated, at: location)
    }

    /// The error with `subject` (an item's name) where its message names the item: first in the message, before a
    /// colon, or before a space where the message goes on from the item ("vertex 3 (1.0, 2.0) cannot be …", "input
    /// feature 0 (a polyline) has no vertices"); nil for an error whose message does not name items.
    func naming(_ subject: String) -> EngineError? {
        switch self {
        case .invalidDistance(let m): .invalidDistance("\(subject): \(m)")
        case .invalidGeometry(let r): .invalidGeometry(reason: "\(subject): \(r)")
        case .invalidArgument(let m): .invalidArgument("\(subject): \(m)")
        case .limitExceeded(let m): .limitExceeded("\(subject): \(m)")
        case .projectionFailed(let m): .projectionFailed("\(subject) \(m)")
        case .badGeometry(.empty(let m)): .badGeometry(.empty("\(subject) \(m)"))
        case .badGeometry(.malformed(let m)): .badGeometry(.malformed("\(subject) \(m)"))
        case .badGeometry(.nonFiniteCoordinate(let m)): .badGeometry(.nonFiniteCoordinate("\(subject) \(m)"))
        case .located(let error, _): error.naming(subject)
        default: nil
        }
    }

    /// The message of an error without a location.
    private var message: String {
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
        case .located: description
        }
    }
}

extension EngineError {
    /// The item of an operation's input an error concerns: a geometry of the list the operation was given, and
    /// where known a vertex of it; or a vertex of a coordinate array. Indices count from 0, in the order the
    /// operation was given its input.
    public struct Location: Sendable, Hashable, CustomStringConvertible {
        /// Which of an operation's lists ``geometry`` counts in.
        public enum List: Sendable, Hashable {
            /// The geometries of an operation with one list (a buffer, a projection): "geometry 3".
            case geometries
            /// A proximity search's input features (ArcGIS's in features): "input feature 3".
            case inputFeatures
            /// A proximity search's near features, those indexed and searched: "near feature 3".
            case nearFeatures
        }

        /// The list ``geometry`` counts in.
        public var list: List
        /// The geometry's index in ``list``; nil for an operation on a coordinate array.
        public var geometry: Int?
        /// The part of the geometry (a polyline's path, a polygon's part), when the error concerns one.
        public var part: Int?
        /// The vertex: its index among the geometry's coordinates, all parts in order (within ``part`` when that is
        /// given), or in the coordinate array.
        public var vertex: Int?

        /// A location.
        /// - Parameters:
        ///   - list: The list `geometry` counts in.
        ///   - geometry: The geometry's index in `list`.
        ///   - part: The part of the geometry.
        ///   - vertex: The vertex.
        public init(_ list: List = .geometries, geometry: Int? = nil, part: Int? = nil, vertex: Int? = nil) {
            self.list = list
            self.geometry = geometry
            self.part = part
            self.vertex = vertex
        }

        /// The location in words: "geometry 3", "near feature 3", "geometry 3, vertex 12", "vertex 12".
        public var description: String {
            var words: [String] = []
            if let geometry {
                switch list {
                case .geometries: words.append("geometry \(geometry)")
                case .inputFeatures: words.append("input feature \(geometry)")
                case .nearFeatures: words.append("near feature \(geometry)")
                }
            }
            if let part { words.append("part \(part)") }
            if let vertex { words.append("vertex \(vertex)") }
            return words.joined(separator: ", ")
        }
    }
}
