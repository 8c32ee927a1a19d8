import Foundation
import Meridian
import MeridianIO

/// The geodesic shapes around point features: one declaration each, registered in `Operation.all`.
extension Operation {
    /// `ellipse`.
    static let ellipse: Operation = Operation(
        "ellipse",
        summary: "around each point: the points at geodesic distance r(phi) from the centre along azimuth 90 + D + phi, r(phi) the radius of the plane ellipse with semi-axes A, B (the longer along D); edges at most L long (default: N vertices), at most N vertices",
        geometry: { op, g throws(EngineError) in try op.ellipse(around: try center(of: g, for: "ellipse")) })

    /// `sector`.
    static let sector: Operation = Operation(
        "sector",
        summary: "the part of the ellipse from direction T (from the major axis) sweeping S clockwise: a polygon with the centre, or the arc as a polyline or multipoint",
        geometry: { op, g throws(EngineError) in try op.sector(around: try center(of: g, for: "sector")) })

    /// The point of a point feature, the centre of its shape.
    private static func center(of g: Geometry, for name: String) throws(EngineError) -> Point {
        guard let center = g.point else {
            throw .invalidArgument("\(name) needs a point feature (its centre), got a \(g.typeName.lowercased())")
        }
        return center
    }
}

extension GeometryOperation {
    /// The geodesic ellipse around `center`, as the geometry type `--geometry-type` names.
    fileprivate func ellipse(around center: Point) throws(EngineError) -> Geometry {
        let n = command.shape
        func make<G: GeodesicShapeGeometry>(_: G.Type) throws(EngineError) -> Geometry {
            try GeometryEngine.geodesicEllipse(parameters: GeodesicEllipseParameters<G>(
                axisDirection: n.axisDirection, center: center, maxPointCount: n.maxPointCount,
                maxSegmentLength: command.maxSegmentLength ?? 0, semiAxis1Length: n.semiAxis1 ?? 0,
                semiAxis2Length: n.semiAxis2 ?? 0)).geometry
        }
        switch n.geometryType {
        case .polyline: return try make(Polyline.self)
        case .multipoint: return try make(Multipoint.self)
        case .polygon: return try make(Polygon.self)
        }
    }

    /// The geodesic sector around `center`, as the geometry type `--geometry-type` names.
    fileprivate func sector(around center: Point) throws(EngineError) -> Geometry {
        let n = command.shape
        func make<G: GeodesicShapeGeometry>(_: G.Type) throws(EngineError) -> Geometry {
            try GeometryEngine.geodesicSector(parameters: GeodesicSectorParameters<G>(
                axisDirection: n.axisDirection, center: center, maxPointCount: n.maxPointCount,
                maxSegmentLength: command.maxSegmentLength ?? 0, sectorAngle: n.sectorAngle ?? 0,
                semiAxis1Length: n.semiAxis1 ?? 0, semiAxis2Length: n.semiAxis2 ?? 0,
                startDirection: n.startDirection)).geometry
        }
        switch n.geometryType {
        case .polyline: return try make(Polyline.self)
        case .multipoint: return try make(Multipoint.self)
        case .polygon: return try make(Polygon.self)
        }
    }
}
