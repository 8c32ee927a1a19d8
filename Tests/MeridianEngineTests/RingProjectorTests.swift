import Foundation
import Testing

import MeridianCore
@testable import MeridianEngine

/// `RingProjector` (the streamed union's GeoJSON): each ring the same doubles as
/// `InterpolatedProjection.project(_:)` gives the polygon (which `InterpolatedProjectionTests` checks against PROJ),
/// and within the projection's bound of PROJ's whole operation itself, closed after projection, in a buffer reused
/// from ring to ring; a vertex PROJ cannot take named by its index in the ring.
@Suite struct RingProjectorTests {
    /// The seed's NAD27 zone into WGS 84 (a datum shift, interpolated) and one without a datum shift.
    @Test(arguments: ["EPSG:32038", "EPSG:5070"])
    func sameAsProjectingThePolygon(code: String) throws {
        let sr = try SpatialReference(code: code)
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        let area = code == "EPSG:32038" ? (lon: -98.0...(-96.0), lat: 32.0...33.5) : (lon: -100.0...(-99.0), lat: 35.0...36.0)
        let big = try InterpolatedProjectionTests.rings(3, in: sr, lon: area.lon, lat: area.lat, radius: 900)
        let small = try InterpolatedProjectionTests.rings(1, in: sr, lon: area.lon, lat: area.lat, radius: 50)
        // Open and closed rings, a long one after a short one (the buffer grows), and a hole.
        let parts = [Polygon.Part(shell: Array(big[0..<64]), holes: [Array(small[0..<64]) + [small[0]]]),
                     Polygon.Part(shell: big + [big[0]]), Polygon.Part(shell: Array(big[64..<70]))]
        var whole = Polygon(parts: parts, spatialReference: sr)
        try projection.project(&whole)
        var projector = RingProjector(projection)
        for (p, part) in parts.enumerated() {
            for (r, ring) in part.rings.enumerated() {
                let expected = Polygon.closed(whole.parts[p].rings[r])
                let got = try projector.withProjected(ring) { Array($0) }
                let same = got == expected  // (a Boolean: Swift Testing would print every vertex)
                #expect(same, "part \(p) ring \(r)")
                #expect(got.first == got.last && got.count == ring.count + (ring.first == ring.last ? 0 : 1))
                let exact = try InterpolatedProjectionTests.exact(Polygon.closed(ring), from: sr)
                #expect(InterpolatedProjectionTests.worst(got, exact) <= InterpolatedProjection.tolerance)
            }
        }
        #expect(projection.tileCounts.interpolated > 0)
    }

    /// A vertex PROJ cannot take fails the ring, named by its index there; the projector goes on with the next.
    @Test func failureNamesTheRingsVertex() throws {
        let sr = try SpatialReference(code: "EPSG:5070")
        let projection = try InterpolatedProjection(from: sr, to: .wgs84)
        var ring = try InterpolatedProjectionTests.rings(1, in: sr, lon: -100...(-99), lat: 35...36, radius: 500)
        let good = ring
        ring.insert(Coordinate(x: 1e30, y: 1e30), at: 20)
        var projector = RingProjector(projection)
        #expect {
            try projector.withProjected(ring) { $0.count }
        } throws: { error in
            "\(error)".contains("vertex 20 ")
        }
        #expect(try projector.withProjected(good) { $0.count } == good.count + 1)
    }
}
