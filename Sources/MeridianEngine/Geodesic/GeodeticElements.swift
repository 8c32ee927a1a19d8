import Foundation
import MeridianCore

/// One piece of an input geometry that a geodesic buffer keeps its distance from: a vertex, or the interior of a
/// geodesic segment (the points whose nearest point on the segment is not an end).
struct GeodeticElement {
    enum Kind {
        case vertex(Coordinate)
        case segment(start: Coordinate, end: Coordinate, line: Geodesic.Line)
    }
    let kind: Kind
    /// The required distance in meters (> 0).
    let required: Double
}

/// The distance from a point to an element and the direction in which it grows fastest.
struct ElementDistance {
    /// Meters.
    var distance: Double
    /// The azimuth, at the point, of the geodesic coming from the element's nearest point (degrees).
    var azimuth: Double
}

/// The nearest point on a geodesic segment.
struct SegmentFoot {
    /// Meters from the segment's start, in [0, length].
    var along: Double
    /// The distance from the point to the segment, meters.
    var distance: Double
    /// The azimuth at the point of the geodesic from the foot (degrees).
    var azimuth: Double
    /// Whether the foot is strictly inside the segment (not an end).
    var isInterior: Bool
}

extension Geodesic {
    /// The mean radius (2a + b)/3 in meters, for spherical first guesses.
    var meanRadius: Double { ellipsoid.semiMajorAxis * (3 - ellipsoid.flattening) / 3 }

    /// The nearest point to `p` on a geodesic segment, found by iterating the spherical along-track step
    /// (each step's point and azimuths are PROJ's geodesic solutions, so the converged foot is exact: the geodesic
    /// from it to `p` is perpendicular to the segment).
    /// - Parameters:
    ///   - p: A lon/lat coordinate.
    ///   - line: The segment.
    ///   - guess: A starting position along the segment in meters, if known.
    func foot(of p: Coordinate, on line: Line, guess: Double? = nil) -> SegmentFoot {
        let length = line.length
        let radius = meanRadius
        // The point at t along the line and the inverse problem from it to p, kept for the last t: the iteration
        // often ends where it was (at an end it is clamped to), and the start is where it begins without a guess.
        var last: (t: Double, azimuth: Double, inverse: Inverse)?
        func at(_ t: Double) -> (azimuth: Double, inverse: Inverse) {
            if let last, last.t == t { return (last.azimuth, last.inverse) }
            let s = line.position(t)
            let inv = inverse(s.coordinate, p)
            last = (t, s.azimuth, inv)
            return (s.azimuth, inv)
        }
        var t: Double
        if let guess {
            t = min(max(guess, 0), length)
        } else {
            let (azimuth, inv) = at(0)
            let beta = (inv.azimuth1 - azimuth) * .pi / 180
            let sigma = inv.distance / radius
            t = min(max(radius * atan2(sin(sigma) * cos(beta), cos(sigma)), 0), length)
        }
        var lastStep = Double.infinity
        for _ in 0..<60 {
            let (azimuth, inv) = at(t)
            let beta = (inv.azimuth1 - azimuth) * .pi / 180
            let sigma = inv.distance / radius
            var dt = radius * atan2(sin(sigma) * cos(beta), cos(sigma))
            // Guard against oscillation: never step further than half the previous step once converging.
            if abs(dt) > lastStep { dt = dt > 0 ? lastStep / 2 : -lastStep / 2 }
            let next = min(max(t + dt, 0), length)
            let moved = abs(next - t)
            // Converged: the point just solved is within 1e-7 m of the foot, its distance within ~1e-14 m.
            if moved < 1e-7 { break }
            t = next
            lastStep = max(moved, 1e-6)
        }
        let inv = at(t).inverse
        let margin = max(length, 1) * 1e-9
        return SegmentFoot(along: t, distance: inv.distance, azimuth: inv.azimuth2,
                           isInterior: t > margin && t < length - margin)
    }

    /// The distance from `p` to an element, or `nil` for a segment whose nearest point is one of its ends (the
    /// end's own vertex element covers that case).
    func distance(from p: Coordinate, to element: GeodeticElement, guess: Double? = nil) -> ElementDistance? {
        switch element.kind {
        case .vertex(let v):
            let inv = inverse(v, p)
            return ElementDistance(distance: inv.distance, azimuth: inv.azimuth2)
        case .segment(_, _, let line):
            let f = foot(of: p, on: line, guess: guess)
            return f.isInterior ? ElementDistance(distance: f.distance, azimuth: f.azimuth) : nil
        }
    }

    /// The distance in meters from `p` to a whole segment, ends included.
    func distance(from p: Coordinate, toSegment line: Line, guess: Double? = nil) -> Double {
        foot(of: p, on: line, guess: guess).distance
    }
}
