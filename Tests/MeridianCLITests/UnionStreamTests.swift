import Foundation
import Meridian
import Testing

@testable import MeridianCLI
@testable import MeridianIO

/// `meridian buffer --union` on many points unions and writes a batch of clusters at a time, the next batch's union
/// overlapping this one's projection and writing, and each batch's text made by two threads a chunk of parts each
/// (`BufferOutput.streamUnion`, `appendParts`). The file must be byte for byte the one written the plain way, one
/// part after another on one thread (same parts, same order, no batch or chunk lost or repeated), run after run.
@Suite struct UnionStreamTests {
    /// 6,000 points in EPSG:32038 (feet) where a 200 ft circle meets about one other on average, from a fixed
    /// linear congruential sequence.
    static func points() -> [Coordinate] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) * 0x1p-53
        }
        let side = (6000 * Double.pi * 4 * 200 * 200).squareRoot()
        return (0..<6000).map { _ in Coordinate(x: 2_300_000 + side * unit(), y: 450_000 + side * unit()) }
    }

    /// Circles per batch: four batches of a few chunks each (`BufferOutput.chunkVertices`).
    static let batchSize = 1_500

    /// The bytes `streamUnion` writes to a file of the given extension.
    static func written(_ points: [Coordinate], format: String, overlapped: Bool, in folder: URL) throws -> Data {
        let url = folder.appendingPathComponent("u-\(overlapped)-\(UUID().uuidString).\(format)")
        let io = CommandIO(readInput: { Data() }, writeOutput: { _ in }, writeError: { _ in })
        try BufferOutput.streamUnion(
            of: points, distances: [200], in: try SpatialReference(parsing: "EPSG:32038"), parameters: .default,
            labels: FeatureLabels(name: "test", count: points.count), to: OutputFile(path: url.path, format: format == "wkt" ? .wkt : .geoJSON), io: io,
            progress: nil, batchSize: batchSize, overlapped: overlapped)
        return try Data(contentsOf: url)
    }

    /// The file written the plain way, on one thread: each batch of the sequential batched union in turn (projected
    /// whole to WGS84 for GeoJSON), each part after a comma, in the documented wrapper.
    static func reference(_ points: [Coordinate], format: String) throws -> (bytes: Data, batches: Int, parts: Int) {
        var out = ByteBuffer()
        var batches = 0, parts = 0
        out.append(format == "wkt" ? "MULTIPOLYGON (" : "{\"features\":[{\"geometry\":{\"coordinates\":[")
        try GeometryEngine.unionOfBuffers(
            aroundPoints: points, distances: [200], in: try SpatialReference(parsing: "EPSG:32038"), batchSize: batchSize
        ) { (batch: Polygon, _: Int) throws(EngineError) in
            var polygon = batch
            if format != "wkt" { try GeometryEngine.project(&polygon, into: .wgs84) }
            for part in polygon.parts {
                if parts > 0 { out.append(format == "wkt" ? ", " : ",") }
                if format == "wkt" { WKT.appendPolygonPart(part, to: &out) } else { GeoJSON.appendPolygonPart(part, to: &out) }
                parts += 1
            }
            batches += 1
        }
        out.append(format == "wkt" ? ")\n" : "],\"type\":\"MultiPolygon\"},\"properties\":{\"count\":\(points.count)},\"type\":\"Feature\"}],\"type\":\"FeatureCollection\"}\n")
        return (out.withBytes { Data($0) }, batches, parts)
    }

    @Test(arguments: ["wkt", "geojson"])
    func writesThePlainBytes(format: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let points = Self.points()
        let reference = try Self.reference(points, format: format)
        #expect(reference.batches == 4 && reference.parts > 1_000)
        // (Booleans in the expectations: Swift Testing would diff megabytes of bytes to describe a failure.)
        let sequential = try Self.written(points, format: format, overlapped: false, in: folder)
        let sequentialSame = sequential == reference.bytes
        #expect(sequentialSame, "the batches written one by one differ from the plain writing")
        for run in 0..<3 {
            let overlappedSame = try Self.written(points, format: format, overlapped: true, in: folder) == reference.bytes
            #expect(overlappedSame, "run \(run): the overlapped union wrote other bytes")
        }
        // And for every thread count (`--threads N`): the union's runs of clusters and the writers' helpers.
        for threads in [1, 2, 3] {
            let written = try Parallelism.withThreadCount(threads) {
                try Self.written(points, format: format, overlapped: true, in: folder)
            }
            let same = written == reference.bytes
            #expect(same, "\(threads) threads: other bytes")
        }
    }

    @Test func batchesSpanSeveralChunks() throws {
        // The second thread of `appendParts` only works when a batch has two chunks or more.
        var vertices = 0, batches = 0
        try GeometryEngine.unionOfBuffers(
            aroundPoints: Self.points(), distances: [200], in: try SpatialReference(parsing: "EPSG:32038"),
            batchSize: Self.batchSize
        ) { (batch: Polygon, _: Int) throws(EngineError) in
            vertices = batches == 0 ? batch.vertexCount : min(vertices, batch.vertexCount)
            batches += 1
        }
        #expect(vertices >= 2 * BufferOutput.chunkVertices, "the smallest batch has \(vertices) vertices")
    }

    /// The streamed union the CLI writes (`BufferOutput.streamUnion`) of 500 circles that touch nothing, in batches
    /// of 1, 64 and 500 circles, read back from the file by meridian's own readers: 500 parts, each centre (a
    /// 1,000 ft lattice, 200 ft circles) the centre of exactly one part of the WKT, and 500 parts of the GeoJSON's
    /// MultiPolygon with a count of 500 (a batch's last cluster dropped, or a batch written twice, changes both).
    @Test(arguments: [1, 64, 500])
    func aStreamedUnionOfIsolatedPointsHasAPartForEach(batchSize: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sr = try SpatialReference(parsing: "EPSG:32038")
        let points = (0..<500).map { Coordinate(x: 2_300_000 + Double($0 % 23) * 1_000, y: 450_000 + Double($0 / 23) * 1_000) }
        let io = CommandIO(readInput: { Data() }, writeOutput: { _ in }, writeError: { _ in })
        for format in [OutputFormat.wkt, .geoJSON] {
            let url = folder.appendingPathComponent("u-\(batchSize).\(format == .wkt ? "wkt" : "geojson")")
            try BufferOutput.streamUnion(
                of: points, distances: [200], in: sr, parameters: .default, labels: FeatureLabels(name: "test", count: 500),
                to: OutputFile(path: url.path, format: format), io: io, progress: nil, batchSize: batchSize, overlapped: true)
            let data = try Data(contentsOf: url)
            if format == .wkt {
                let parts = try WKT.decode(String(decoding: data, as: UTF8.self), spatialReference: sr).polygon?.parts ?? []
                #expect(parts.count == 500, "batch size \(batchSize): \(parts.count) parts")
                // A part is the 64-gon around one centre: the mean of its vertices is that centre (to rounding).
                let centres = parts.map { Self.centre(of: $0.shell) }
                let held = points.map { c in centres.filter { hypot($0.x - c.x, $0.y - c.y) < 1e-6 }.count }
                #expect(held.allSatisfy { $0 == 1 }, "batch size \(batchSize): centres held by \(Set(held)) parts")
            } else {
                let features = try GeoJSON.decodeFeatures(data)
                #expect(features.count == 1 && features[0].properties["count"] == .number(500))
                #expect(features.first?.geometry?.polygon?.parts.count == 500, "batch size \(batchSize)")
            }
        }
    }

    /// The mean of a closed ring's vertices (the closing one counted once).
    static func centre(of ring: [Coordinate]) -> Coordinate {
        let open = ring.dropLast()
        let n = Double(open.count)
        return Coordinate(x: open.reduce(0) { $0 + $1.x } / n, y: open.reduce(0) { $0 + $1.y } / n)
    }
}
