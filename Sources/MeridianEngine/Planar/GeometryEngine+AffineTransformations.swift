import Foundation
import MeridianCore

// MARK: - Affine transformations: move, rotate and scale

extension GeometryEngine {
    /// The geometry moved by a distance along each axis (ArcGIS `move(_:deltaX:deltaY:)`), of the input's type
    /// (a wrapped envelope stays an envelope).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or `Geometry`.
    ///   - deltaX: The shift along x, in the spatial reference's unit.
    ///   - deltaY: The shift along y, in the spatial reference's unit.
    public static func move<G: VertexGeometry>(_ geometry: G, deltaX: Double, deltaY: Double) -> G {
        if let e = geometry.geometry.envelope, let moved = G(.envelope(move(e, deltaX: deltaX, deltaY: deltaY))) {
            return moved
        }
        return geometry.mapCoordinates(into: geometry.geometry.spatialReference) {
            Coordinate(x: $0.x + deltaX, y: $0.y + deltaY, z: $0.z)
        }
    }

    /// An envelope moved by a distance along each axis: still an envelope.
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - deltaX: The shift along x, in the spatial reference's unit.
    ///   - deltaY: The shift along y, in the spatial reference's unit.
    public static func move(_ envelope: Envelope, deltaX: Double, deltaY: Double) -> Envelope {
        Envelope(xMin: envelope.xMin + deltaX, yMin: envelope.yMin + deltaY, xMax: envelope.xMax + deltaX,
                 yMax: envelope.yMax + deltaY, spatialReference: envelope.spatialReference)
    }

    /// The geometry rotated counter-clockwise about a point (ArcGIS `rotate(_:by:around:)`), of the input's type
    /// (a wrapped envelope becomes a polygon).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or `Geometry`.
    ///   - angle: The rotation in degrees, counter-clockwise.
    ///   - origin: The fixed point; `nil` for the centre of the geometry's extent.
    public static func rotate<G: VertexGeometry>(_ geometry: G, by angle: Double, around origin: Point? = nil) -> G {
        let g = geometry.geometry
        let center = origin?.coordinate ?? g.extent?.center ?? Coordinate(x: 0, y: 0)  // (no vertices: no matter)
        let (s, c) = (sin(angle * .pi / 180), cos(angle * .pi / 180))
        return geometry.mapCoordinates(into: g.spatialReference) {
            let (x, y) = ($0.x - center.x, $0.y - center.y)
            return Coordinate(x: center.x + c * x - s * y, y: center.y + s * x + c * y, z: $0.z)
        }
    }

    /// An envelope rotated about a point: a polygon, since a turned rectangle is no longer axis-aligned.
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - angle: The rotation in degrees, counter-clockwise.
    ///   - origin: The fixed point; `nil` for the envelope's centre.
    public static func rotate(_ envelope: Envelope, by angle: Double, around origin: Point? = nil) -> Polygon {
        rotate(envelope.polygon, by: angle, around: origin)
    }

    /// The geometry scaled about a point (ArcGIS `scale(_:factorX:factorY:relativeTo:)`), of the input's type
    /// (a wrapped envelope becomes a polygon).
    /// - Parameters:
    ///   - geometry: A point, multipoint, polyline, polygon or `Geometry`.
    ///   - factorX: The scale factor along x (negative mirrors).
    ///   - factorY: The scale factor along y (negative mirrors).
    ///   - origin: The fixed point; `nil` for the centre of the geometry's extent.
    public static func scale<G: VertexGeometry>(
        _ geometry: G, factorX: Double, factorY: Double, relativeTo origin: Point? = nil
    ) -> G {
        let g = geometry.geometry
        let center = origin?.coordinate ?? g.extent?.center ?? Coordinate(x: 0, y: 0)  // (no vertices: no matter)
        return geometry.mapCoordinates(into: g.spatialReference) {
            Coordinate(x: center.x + factorX * ($0.x - center.x), y: center.y + factorY * ($0.y - center.y), z: $0.z)
        }
    }

    /// An envelope scaled about a point, as a polygon (as `scale(_:factorX:factorY:relativeTo:)`).
    /// - Parameters:
    ///   - envelope: The rectangle.
    ///   - factorX: The scale factor along x (negative mirrors).
    ///   - factorY: The scale factor along y (negative mirrors).
    ///   - origin: The fixed point; `nil` for the envelope's centre.
    public static func scale(
        _ envelope: Envelope, factorX: Double, factorY: Double, relativeTo origin: Point? = nil
    ) -> Polygon {
        scale(envelope.polygon, factorX: factorX, factorY: factorY, relativeTo: origin)
    }
}

extension Envelope {
    /// The centre of the rectangle.
    var center: Coordinate { Coordinate(x: (xMin + xMax) / 2, y: (yMin + yMax) / 2) }
}
