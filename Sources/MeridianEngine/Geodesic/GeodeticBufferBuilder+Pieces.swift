import MeridianCore

/// One geodesic segment of a line or polygon being buffered, with its azimuths at both ends (degrees).
struct BufferSegment: Sendable {
    let a: Coordinate
    let b: Coordinate
    let line: Geodesic.Line
    let azimuthA: Double
    let azimuthB: Double
}

extension GeodeticBufferBuilder {
    /// Buffers of at least this many segments and isolated vertices build their pieces on two threads (a task
    /// local so that tests can compare both paths on one input; read on the calling thread only).
    @TaskLocal static var twoThreadPieces = 256

    /// GEOS's union of the buffer's pieces: one circle per isolated vertex and one band (both offsets and the end
    /// circles' outer halves) per segment, in output coordinates; every piece's vertices go into `generated`.
    ///
    /// With at least `twoThreadPieces` segments and isolated vertices, the first half (the isolated vertices and
    /// the first half of the segments) is built and unioned on the calling thread and the rest on a second thread,
    /// each with its own GEOS context; then the two unions are unioned. Each circle is computed from its vertex's
    /// full list of mandatory azimuths, so a vertex shared by both halves gets the same circle in both.
    /// - Parameters:
    ///   - isolated: Vertices buffered alone (a circle each).
    ///   - segments: The segments, in order.
    ///   - mandatory: Every vertex's mandatory circle azimuths (degrees), keyed by the vertex.
    ///   - radius: The buffer distance, meters, > 0.
    func piecesUnion(isolated: [Coordinate], segments: [BufferSegment], mandatory: [XY: [Double]], radius: Double)
        throws(EngineError) -> GEOSGeometryRef
    {
        guard isolated.count + segments.count >= Self.twoThreadPieces, segments.count >= 2 else {
            return try unionOfPieces(isolated: isolated, segments: segments[...], mandatory: mandatory, radius: radius)
        }
        let mid = segments.count / 2
        let (frame, tolerance) = (frame, tolerance)
        let rest = segments[mid...]
        let (first, second) = try WorkBudget.forkJoin { () throws(EngineError) -> GEOSGeometryRef in
            try unionOfPieces(isolated: isolated, segments: segments[..<mid], mandatory: mandatory, radius: radius)
        } background: { () throws(EngineError) -> (Polygon, Set<XY>) in
            let builder = GeodeticBufferBuilder(frame: frame, context: try GEOSContext(), tolerance: tolerance)
            let union = try builder.unionOfPieces(isolated: [], segments: rest, mandatory: mandatory, radius: radius)
            return (try builder.context.polygon(union, in: frame.outputSR), builder.generated)
        }
        let (polygon, generatedByBackground) = second
        generated.formUnion(generatedByBackground)
        return try context.unaryUnion(of: [first, try context.make(.polygon(polygon))])
    }

    /// `piecesUnion` on the calling thread, for some of the segments.
    private func unionOfPieces(isolated: [Coordinate], segments: ArraySlice<BufferSegment>, mandatory: [XY: [Double]],
                               radius: Double) throws(EngineError) -> GEOSGeometryRef
    {
        var circles: [XY: SampledCircle] = [:]
        func circle(_ v: Coordinate) throws(EngineError) -> SampledCircle {
            if let c = circles[XY(v)] { return c }
            let c = try self.circle(center: v, radius: radius, mandatory: mandatory[XY(v)] ?? [])
            circles[XY(v)] = c
            return c
        }
        var pieces: [GEOSGeometryRef] = []
        for v in isolated { pieces += try piece(try circle(v).samples) }
        for (k, s) in segments.enumerated() {
            if k % 64 == 63 { try WorkBudget.check() }
            let ca = try circle(s.a), cb = try circle(s.b)
            let uRightA = normalizedAngle(-(s.azimuthA + 90)), uLeftA = normalizedAngle(-(s.azimuthA - 90))
            let uRightB = normalizedAngle(-(s.azimuthB + 90))
            let rightStart = ca.arc(from: uRightA, span: 0)[0]
            let arcB = cb.arc(from: uRightB, span: 180)
            let arcA = ca.arc(from: uLeftA, span: 180)
            guard let rightEnd = arcB.first, let leftStart = arcB.last, let leftEnd = arcA.first else { continue }
            let right = try offset(line: s.line, side: 1, radius: radius, start: rightStart, end: rightEnd)
            let left = try offset(line: s.line, side: -1, radius: radius, start: leftStart, end: leftEnd)
            var ring = right
            ring += arcB.dropFirst()
            ring += left.dropFirst()
            ring += arcA.dropFirst()
            pieces += try piece(ring)
        }
        if pieces.isEmpty { return try context.emptyPolygon("empty") }
        return try context.unaryUnion(of: pieces)
    }
}
