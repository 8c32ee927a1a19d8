import CGEOS
import MeridianCore

// MARK: - Buffers and offset curves (GEOS buffer with parameters, buffer with style, offset curve)

/// GEOS buffer parameters made from Meridian's `BufferParameters`, destroyed with this object.
final class GEOSBufferParameters {
    private let context: GEOSContext
    fileprivate let pointer: OpaquePointer

    /// GEOS's parameters for `p` (chords per quarter circle, end cap, join, mitre limit); GEOS's message (under
    /// `operation`) when GEOS fails.
    init(_ p: BufferParameters, context: GEOSContext, _ operation: String = "buffer parameters") throws(EngineError) {
        guard let params = GEOSBufferParams_create_r(context.handle) else { throw context.error(operation) }
        self.context = context
        pointer = params
        GEOSBufferParams_setQuadrantSegments_r(context.handle, params, Int32(p.segmentsPerQuarterCircle))
        GEOSBufferParams_setEndCapStyle_r(context.handle, params, Int32(Self.cap(p.endCapStyle).rawValue))
        GEOSBufferParams_setJoinStyle_r(context.handle, params, Int32(Self.join(p.joinStyle).rawValue))
        GEOSBufferParams_setMitreLimit_r(context.handle, params, p.mitreLimit)
    }

    deinit { GEOSBufferParams_destroy_r(context.handle, pointer) }

    fileprivate static func cap(_ style: EndCapStyle) -> GEOSBufCapStyles {
        switch style {
        case .round: GEOSBUF_CAP_ROUND
        case .flat: GEOSBUF_CAP_FLAT
        case .square: GEOSBUF_CAP_SQUARE
        }
    }

    fileprivate static func join(_ style: JoinStyle) -> GEOSBufJoinStyles {
        switch style {
        case .round: GEOSBUF_JOIN_ROUND
        case .mitre: GEOSBUF_JOIN_MITRE
        case .bevel: GEOSBUF_JOIN_BEVEL
        }
    }
}

extension GEOSGeometryRef {
    /// GEOS's planar buffer at `distance` with `parameters`.
    func buffer(_ distance: Double, _ parameters: GEOSBufferParameters, _ operation: String = "buffer")
        throws(EngineError) -> GEOSGeometryRef
    {
        try context.own(GEOSBufferWithParams_r(context.handle, pointer, parameters.pointer, distance), operation)
    }

    /// GEOS's planar buffer with round caps and joins, `quarterSegments` chords per quarter circle and mitre limit 5.
    func roundBuffer(_ distance: Double, quarterSegments: Int, _ operation: String = "buffer")
        throws(EngineError) -> GEOSGeometryRef
    {
        try context.own(GEOSBufferWithStyle_r(context.handle, pointer, distance, Int32(quarterSegments),
                                              Int32(GEOSBUF_CAP_ROUND.rawValue), Int32(GEOSBUF_JOIN_ROUND.rawValue), 5),
                        operation)
    }

    /// GEOS's offset curve of a line string at `distance` (positive: left of its direction).
    func offsetCurve(_ distance: Double, quarterSegments: Int, join: JoinStyle, mitreLimit: Double,
                     _ operation: String = "offset") throws(EngineError) -> GEOSGeometryRef
    {
        try context.own(GEOSOffsetCurve_r(context.handle, pointer, distance, Int32(quarterSegments),
                                          Int32(GEOSBufferParameters.join(join).rawValue), mitreLimit), operation)
    }
}
