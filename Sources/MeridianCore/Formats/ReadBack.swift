/// What Meridian's readers refuse, stated for its writers: a writer checks a geometry with these before writing it,
/// so that it never emits what `GeoJSON.decodeFeatures`, `WKT.decode` or a longitude/latitude input refuses.
///
/// Each check returns a phrase saying why (e.g. "ring 1 of part 1 has 3 positions once closed; GeoJSON needs at
/// least 4"), or `nil` when the geometry reads back. Property tests hold them to the readers: a geometry passes a
/// check exactly when its writer's output is read back.
public enum ReadBack {
    /// Why the GeoJSON `GeoJSON.encode` writes for the geometry would be refused by `GeoJSON.decodeFeatures`: a
    /// coordinate that is not finite (written as `null`), a line with fewer than 2 positions, a ring with fewer than
    /// 4 once closed (a triangle's three corners and the first again).
    /// - Parameter geometry: A geometry.
    public static func geoJSONProblem(_ geometry: Geometry) -> String? {
        if let problem = finiteProblem(geometry) { return problem }
        switch geometry {
        case .point, .multipoint, .envelope:
            return nil
        case .polyline(let l):
            if l.parts.count == 1 && l.parts[0].isEmpty { return nil }  // "coordinates": [] reads as no geometry
            if let (i, part) = l.parts.enumerated().first(where: { $0.element.count < 2 }) {
                return "line \(i + 1) has \(part.count) position\(part.count == 1 ? "" : "s"); GeoJSON needs at least 2"
            }
            return nil
        case .polygon(let p):
            return ringProblem(p, minimum: 4, format: "GeoJSON")
        }
    }

    /// Why the WKT `WKT.encode` writes for the geometry would be refused by `WKT.decode`: a coordinate that is not
    /// finite, a line with fewer than 2 vertices, a ring with fewer than 3 once closed, a polygon part whose shell
    /// is empty.
    /// - Parameter geometry: A geometry.
    public static func wktProblem(_ geometry: Geometry) -> String? {
        if let problem = finiteProblem(geometry) { return problem }
        switch geometry {
        case .point, .multipoint, .envelope:
            return nil
        case .polyline(let l):
            if let (i, part) = l.parts.enumerated().first(where: { $0.element.count < 2 }) {
                return "line \(i + 1) has \(part.count) vertex\(part.count == 1 ? "" : "es"); WKT needs at least 2"
            }
            return nil
        case .polygon(let p):
            return ringProblem(p, minimum: 3, format: "WKT")
        }
    }

    /// Why a coordinate is not a longitude/latitude pair Meridian reads: a latitude beyond ±90° or a longitude
    /// beyond ±180° (or one that is not a number), or `nil`.
    /// - Parameter c: A coordinate, `x` the longitude and `y` the latitude in degrees.
    public static func longitudeLatitudeProblem(_ c: Coordinate) -> String? {
        if !(abs(c.y) <= 90) { return "latitude \(c.y) is outside -90…90" }
        if !(abs(c.x) <= 180) { return "longitude \(c.x) is outside -180…180" }
        return nil
    }

    /// The first coordinate of a longitude/latitude geometry that `longitudeLatitudeProblem` refuses, said.
    /// - Parameter geometry: A geometry in longitude/latitude.
    public static func longitudeLatitudeProblem(_ geometry: Geometry) -> String? {
        for c in geometry.coordinates {
            if let problem = longitudeLatitudeProblem(c) { return problem }
        }
        return nil
    }

    /// A coordinate that is not finite, said.
    private static func finiteProblem(_ geometry: Geometry) -> String? {
        guard let c = geometry.coordinates.first(where: { !$0.isFinite }) else { return nil }
        return "a coordinate is not a finite number (\(c.x), \(c.y)\(c.z.map { ", \($0)" } ?? ""))"
    }

    /// The first ring with fewer than `minimum` positions once closed (or an empty shell), said.
    private static func ringProblem(_ p: Polygon, minimum: Int, format: String) -> String? {
        for (k, part) in p.parts.enumerated() {
            for (j, ring) in part.rings.enumerated() {
                let n = Polygon.closed(ring).count
                guard n < minimum else { continue }
                let which = j == 0 ? "the outer ring" : "hole \(j)"
                let whose = p.parts.count == 1 ? "" : " of part \(k + 1)"
                return "\(which)\(whose) has \(n) position\(n == 1 ? "" : "s") once closed; \(format) needs at least \(minimum)"
            }
        }
        return nil
    }
}
