import CPROJ
import Foundation
import MeridianCore

/// A thin wrapper over PROJ's geodesic routines (`geod_*`, C. F. F. Karney's algorithms) for one ellipsoid.
///
/// Nothing here re-implements the algorithms: every geodesic problem is solved by PROJ. Latitudes, longitudes and
/// azimuths are in degrees (azimuths clockwise from north), distances in meters, areas in square meters.
/// A value type; its C struct holds only doubles, so it is safe to share between threads.
struct Geodesic: @unchecked Sendable {
    private var g = geod_geodesic()
    /// The ellipsoid this solver works on.
    let ellipsoid: Ellipsoid

    /// The solver for an ellipsoid (semi-major axis in meters, flattening).
    init(_ ellipsoid: Ellipsoid) {
        self.ellipsoid = ellipsoid
        geod_init(&g, ellipsoid.semiMajorAxis, ellipsoid.flattening)
        var s12 = 0.0
        geod_inverse(&g, -90, 0, 90, 0, &s12, nil, nil)
        halfMeridian = s12
    }

    /// The solution of a direct problem: where a geodesic of length `s12` from (lat1, lon1) at `azi1` ends.
    struct Direct: Sendable, Hashable {
        /// End latitude, degrees.
        var latitude: Double
        /// End longitude, degrees in [-180, 180] (or unrolled when asked).
        var longitude: Double
        /// Forward azimuth at the end, degrees.
        var azimuth: Double
    }

    /// The solution of an inverse problem: the shortest geodesic between two points.
    struct Inverse: Sendable, Hashable {
        /// Distance in meters.
        var distance: Double
        /// Azimuth at the first point, degrees.
        var azimuth1: Double
        /// Forward azimuth at the second point, degrees.
        var azimuth2: Double
    }

    /// Solves the direct problem.
    /// - Parameters:
    ///   - unroll: `true` to return the longitude unrolled (continuous with `lon1`, may leave [-180, 180]).
    func direct(latitude lat1: Double, longitude lon1: Double, azimuth azi1: Double, distance s12: Double,
                unroll: Bool = false) -> Direct {
        var lat2 = 0.0, lon2 = 0.0, azi2 = 0.0
        withUnsafePointer(to: g) { gp in
            _ = geod_gendirect(gp, lat1, lon1, azi1, unroll ? UInt32(GEOD_LONG_UNROLL.rawValue) : 0, s12,
                               &lat2, &lon2, &azi2, nil, nil, nil, nil, nil)
        }
        return Direct(latitude: lat2, longitude: lon2, azimuth: azi2)
    }

    /// Solves the inverse problem between (lat1, lon1) and (lat2, lon2).
    func inverse(latitude1 lat1: Double, longitude1 lon1: Double, latitude2 lat2: Double, longitude2 lon2: Double)
        -> Inverse
    {
        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
        withUnsafePointer(to: g) { gp in geod_inverse(gp, lat1, lon1, lat2, lon2, &s12, &azi1, &azi2) }
        return Inverse(distance: s12, azimuth1: azi1, azimuth2: azi2)
    }

    /// The distance in meters between two lon/lat coordinates (x = longitude, y = latitude): the inverse problem's
    /// distance, without its azimuths (the same `s12` as `inverse`, two `atan2` fewer).
    func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        var s12 = 0.0
        withUnsafePointer(to: g) { gp in
            _ = geod_geninverse(gp, a.y, a.x, b.y, b.x, &s12, nil, nil, nil, nil, nil, nil)
        }
        return s12
    }

    /// The inverse problem between two lon/lat coordinates (x = longitude, y = latitude).
    func inverse(_ a: Coordinate, _ b: Coordinate) -> Inverse {
        inverse(latitude1: a.y, longitude1: a.x, latitude2: b.y, longitude2: b.x)
    }

    /// The lon/lat coordinate `distance` meters from `c` along `azimuth` (longitude unrolled relative to `c` when asked).
    func move(_ c: Coordinate, azimuth: Double, distance: Double, unroll: Bool = false) -> Coordinate {
        let d = direct(latitude: c.y, longitude: c.x, azimuth: azimuth, distance: distance, unroll: unroll)
        return Coordinate(x: d.longitude, y: d.latitude)
    }

    /// A geodesic line (segment) between two lon/lat coordinates, for positions along it.
    func line(from a: Coordinate, to b: Coordinate) -> Line {
        var l = geod_geodesicline()
        withUnsafePointer(to: g) { gp in
            geod_inverseline(&l, gp, a.y, a.x, b.y, b.x,
                             UInt32(GEOD_LATITUDE.rawValue | GEOD_LONGITUDE.rawValue | GEOD_AZIMUTH.rawValue
                                    | GEOD_DISTANCE_IN.rawValue))
        }
        return Line(l: l)
    }

    /// A geodesic segment from `geod_inverseline`: its length and the points along it.
    struct Line: @unchecked Sendable {
        fileprivate var l: geod_geodesicline
        /// The segment's length in meters.
        var length: Double { l.s13 }
        /// Azimuth at the start, degrees.
        var azimuth1: Double { l.azi1 }

        /// The point `s` meters along the line (longitude unrolled from the start) and the forward azimuth there.
        func position(_ s: Double) -> (coordinate: Coordinate, azimuth: Double) {
            var lat = 0.0, lon = 0.0, azi = 0.0
            withUnsafePointer(to: l) { lp in
                _ = geod_genposition(lp, UInt32(GEOD_LONG_UNROLL.rawValue), s, &lat, &lon, &azi,
                                     nil, nil, nil, nil, nil)
            }
            return (Coordinate(x: lon, y: lat), azi)
        }
    }

    /// Area and perimeter of a ring of lon/lat coordinates joined by geodesics (no need to close it).
    /// - Parameters:
    ///   - signed: `true` → area in (−A/2, A/2], positive for counter-clockwise rings; `false` → counter-clockwise
    ///     area in [0, A) (a clockwise ring gives the rest of the ellipsoid), where A is the ellipsoid's area.
    /// - Returns: Area in m² and perimeter in m.
    func polygonArea(_ ring: [Coordinate], signed: Bool = true) -> (area: Double, perimeter: Double) {
        var p = geod_polygon()
        geod_polygon_init(&p, 0)
        var area = 0.0, perimeter = 0.0
        withUnsafePointer(to: g) { gp in
            for c in ring { geod_polygon_addpoint(gp, &p, c.y, c.x) }
            _ = geod_polygon_compute(gp, &p, 0, signed ? 1 : 0, &area, &perimeter)
        }
        return (area, perimeter)
    }

    /// The length of a path of lon/lat coordinates joined by geodesics, in meters.
    func pathLength(_ path: [Coordinate]) -> Double {
        var p = geod_polygon()
        geod_polygon_init(&p, 1)
        var perimeter = 0.0
        withUnsafePointer(to: g) { gp in
            for c in path { geod_polygon_addpoint(gp, &p, c.y, c.x) }
            _ = geod_polygon_compute(gp, &p, 0, 1, nil, &perimeter)
        }
        return perimeter
    }

    /// The total area of the ellipsoid in m², from the closed form 2πa²(1 + (1−e²)/e · atanh e) (4πa² for a sphere).
    var ellipsoidArea: Double {
        let a = ellipsoid.semiMajorAxis, f = ellipsoid.flattening
        let e2 = f * (2 - f)
        guard e2 > 1e-15 else { return 4 * Double.pi * a * a }
        let e = e2.squareRoot()
        return 2 * Double.pi * a * a * (1 + (1 - e2) / e * atanh(e))
    }

    /// Half the meridian's length (pole to pole) in meters: the longest shortest-geodesic on an oblate ellipsoid.
    let halfMeridian: Double
}
