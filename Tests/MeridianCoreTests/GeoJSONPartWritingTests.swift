import Foundation
import Testing

@testable import MeridianCore

private func vertex(_ x: Double, _ y: Double, _ z: Double? = nil) -> Coordinate { Coordinate(x: x, y: y, z: z) }

/// `GeoJSON.appendPolygonPart` and `appendPolygonRing(closed:isShell:to:)` write positions straight to the output
/// (the streamed union's GeoJSON): the bytes must be those of the general writer (`GeoJSON.encode`, a
/// `JSONWriter` over `oriented` copies of the rings) for every kind of ring, and, for a small case worked out by
/// hand, the closed ring in RFC 7946's orientation.
@Suite struct GeoJSONPartWritingTests {

    /// The text of a part written straight.
    private static func straight(_ part: Polygon.Part) -> String {
        var out = ByteBuffer()
        GeoJSON.appendPolygonPart(part, to: &out)
        return out.string
    }

    /// Parts covering both orientations of shells and holes, open and closed rings, a ring of zero area, heights,
    /// whole numbers, -0, tiny and large magnitudes, and shortest-decimal longitudes/latitudes.
    static let parts: [Polygon.Part] = [
        Polygon.Part(shell: [vertex(0, 0), vertex(1, 0), vertex(1, 1), vertex(0, 1)]),  // counter-clockwise, open
        Polygon.Part(shell: [vertex(0, 0), vertex(0, 1), vertex(1, 1), vertex(1, 0), vertex(0, 0)]),  // clockwise, closed
        Polygon.Part(shell: [vertex(-97.123456789012345, 32.1), vertex(-97.1, 32.1), vertex(-97.1, 32.2)],
                     holes: [[vertex(-97.11, 32.12), vertex(-97.105, 32.12), vertex(-97.105, 32.13)],  // counter-clockwise hole
                             [vertex(-97.109, 32.14), vertex(-97.109, 32.145), vertex(-97.104, 32.145), vertex(-97.109, 32.14)]]),
        Polygon.Part(shell: [vertex(1, 1), vertex(2, 2), vertex(3, 3)]),  // zero area: left as given
        Polygon.Part(shell: [vertex(-0.0, 1e-300, 5), vertex(1e20, 0, -0.5), vertex(1e20, 1e20, 12), vertex(0, 1e20, 3.25)]),
        Polygon.Part(shell: []),
    ]

    @Test func sameBytesAsTheGeneralWriter() {
        for (k, part) in Self.parts.enumerated() {
            let general = String(decoding: GeoJSON.encode(.polygon(Polygon(parts: [part], spatialReference: .wgs84))),
                                 as: UTF8.self)
            let expected = "{\"coordinates\":" + Self.straight(part) + ",\"type\":\"Polygon\"}"
            #expect(general == expected, "part \(k)")
        }
    }

    /// A clockwise open shell and a counter-clockwise hole with heights: closed, the shell turned counter-clockwise,
    /// the hole clockwise, the heights kept (worked out by hand).
    @Test func closedAndTurnedByHand() {
        let part = Polygon.Part(shell: [vertex(0, 0), vertex(0, 4), vertex(4, 0)],
                                holes: [[vertex(1, 1, 7), vertex(2, 1, 8), vertex(1, 2, 9), vertex(1, 1, 7)]])
        #expect(Self.straight(part) == "[[[0,0],[4,0],[0,4],[0,0]],[[1,1,7],[1,2,9],[2,1,8],[1,1,7]]]")
    }

    /// A ring handed over in memory the caller owns is written as the same ring in an array.
    @Test func ringFromMemoryAsFromArray() {
        let ring = [vertex(0.5, 0.25), vertex(0.5, 3), vertex(3.125, 0.25), vertex(0.5, 0.25)]
        for isShell in [true, false] {
            var fromArray = ByteBuffer(), fromMemory = ByteBuffer()
            GeoJSON.appendPolygonRing(ring, isShell: isShell, to: &fromArray)
            ring.withUnsafeBufferPointer { GeoJSON.appendPolygonRing(closed: $0, isShell: isShell, to: &fromMemory) }
            #expect(fromArray.string == fromMemory.string)
        }
        var out = ByteBuffer()
        GeoJSON.appendPolygonRing(ring, isShell: true, to: &out)
        #expect(out.string == "[[0.5,0.25],[3.125,0.25],[0.5,3],[0.5,0.25]]")
    }
}
