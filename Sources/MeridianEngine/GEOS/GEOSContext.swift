import CGEOS
import MeridianCore

// The GEOS bridge: the only files of MeridianEngine that import CGEOS (GEOS/, one file per operation family). The
// rest of the engine works with `GEOSContext` and `GEOSGeometryRef` through the typed functions these files declare
// and never touches a GEOS handle or pointer (Tests/MeridianEngineTests/EngineLayoutTests.swift checks both).

/// Owns one GEOS context handle: created in `init`, finished in `deinit`. GEOS's error messages are collected
/// and put into the thrown `EngineError.geos`. Not shared between threads: each engine call makes its own.
final class GEOSContext {
    let handle: GEOSContextHandle_t
    private(set) var lastError: String?

    init() throws(EngineError) {
        guard let handle = GEOS_init_r() else { throw .geos("could not create a GEOS context") }
        self.handle = handle
        GEOSContext_setErrorMessageHandler_r(handle, { message, userdata in
            guard let message, let userdata else { return }
            let context = Unmanaged<GEOSContext>.fromOpaque(userdata).takeUnretainedValue()
            context.lastError = String(cString: message)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { GEOS_finish_r(handle) }

    /// The GEOS library version, e.g. "3.11.1-CAPI-1.17.1".
    static var version: String { String(cString: GEOSversion()) }

    /// The error to throw after a GEOS call failed.
    func error(_ operation: String) -> EngineError {
        defer { lastError = nil }
        return .geos("\(operation): \(lastError ?? "failed")")
    }

    /// Wraps a GEOS-owned geometry pointer, or throws GEOS's message when it is null.
    func own(_ pointer: OpaquePointer?, _ operation: String) throws(EngineError) -> GEOSGeometryRef {
        guard let pointer else { throw error(operation) }
        return GEOSGeometryRef(context: self, pointer: pointer)
    }
}

/// One GEOS geometry owned by Swift; destroyed with it unless ownership was handed to GEOS with `release()`.
/// Holds its context so the context outlives it.
final class GEOSGeometryRef {
    let context: GEOSContext
    let pointer: OpaquePointer
    private var isOwned = true

    init(context: GEOSContext, pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit { if isOwned { GEOSGeom_destroy_r(context.handle, pointer) } }

    /// Gives up ownership, for GEOS calls that take ownership of their inputs (collections, polygons).
    func release() -> OpaquePointer {
        isOwned = false
        return pointer
    }
}
