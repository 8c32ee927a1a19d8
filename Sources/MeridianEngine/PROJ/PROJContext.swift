import CPROJ
import Foundation
import MeridianCore

/// Owns one PROJ context while it lives: taken in `init` from a pool of contexts no one is using (or created), handed
/// back to the pool in `deinit` (or destroyed when the pool is full). PROJ's log messages are captured (never
/// printed to stderr) and put into thrown errors. A context and the objects made with it are used by one thread
/// at a time; `SpatialReference` and `Transformation` guard theirs with a lock. Every context reads files only
/// through ``PROJFilePolicy`` (PROJ's data directories, regular files); what it refused is kept in ``refusedFiles``
/// and thrown by ``checkFileAccess()``.
///
/// Why a pool: a context opens PROJ's database (proj.db) the first time it looks a code up, and keeps it and what
/// it read; a new context per lookup opened it again and again (53 contexts for one `meridian project` of one point,
/// about 0.1 s of SQLite).
final class PROJContext: @unchecked Sendable {
    let handle: OpaquePointer
    private(set) var messages: [String] = []
    /// The paths PROJ asked to open that ``PROJFilePolicy`` refused, since this owner took the context.
    var refusedFiles: [String] = []

    /// Contexts no one uses, at most `poolLimit` (guarded by `poolLock`).
    nonisolated(unsafe) private static var pool: [OpaquePointer] = []
    private static let poolLock = NSLock()
    private static let poolLimit = 16

    init() {
        let pooled = PROJContext.poolLock.withLock { PROJContext.pool.popLast() }
        if let pooled {
            handle = pooled
        } else {
            handle = proj_context_create()
            proj_context_set_enable_network(handle, 0)
            proj_log_level(handle, PJ_LOG_ERROR)
        }
        PROJFilePolicy.install(on: handle, owner: Unmanaged.passUnretained(self).toOpaque())
        proj_log_func(handle, Unmanaged.passUnretained(self).toOpaque()) { userdata, _, message in
            guard let userdata, let message else { return }
            let context = Unmanaged<PROJContext>.fromOpaque(userdata).takeUnretainedValue()
            context.messages.append(String(cString: message))
            if context.messages.count > 16 { context.messages.removeFirst() }
        }
    }

    deinit {
        // Every object made with the context is gone (each holds its context). The log goes nowhere until the next
        // owner sets its own.
        proj_log_func(handle, nil) { _, _, _ in }
        PROJFilePolicy.install(on: handle, owner: nil)
        let kept = PROJContext.poolLock.withLock { () -> Bool in
            guard PROJContext.pool.count < PROJContext.poolLimit else { return false }
            PROJContext.pool.append(handle)
            return true
        }
        if !kept { proj_context_destroy(handle) }
    }

    /// The last thing PROJ said, or its error string for the context's errno.
    func lastMessage() -> String {
        if let m = messages.last { return m }
        let errno = proj_context_errno(handle)
        if errno != 0, let s = proj_context_errno_string(handle, errno) { return String(cString: s) }
        return "unknown PROJ error"
    }

    /// Throws when PROJ was refused a file since this owner took the context: the operation that asked for it would
    /// otherwise run without it (PROJ quietly chooses another operation when a grid is missing).
    /// - Throws: `EngineError.fileRefused` naming the first refused path.
    func checkFileAccess() throws(EngineError) {
        if let path = refusedFiles.first { throw .fileRefused(path) }
    }

    /// Runs a PROJ call that makes an object with this context: its result, or `fileRefused` (the object destroyed)
    /// when PROJ was refused a file during it or before.
    /// - Parameter make: The call, given the context's handle.
    /// - Throws: `EngineError.fileRefused` naming the first refused path.
    func making(_ make: (OpaquePointer) -> OpaquePointer?) throws(EngineError) -> OpaquePointer? {
        let made = make(handle)
        if let made, !refusedFiles.isEmpty { proj_destroy(made) }
        try checkFileAccess()
        return made
    }

    func clearMessages() {
        messages.removeAll()
    }
}

/// A PJ object owned by Swift, destroyed with it.
final class PROJObject: @unchecked Sendable {
    let pointer: OpaquePointer
    let context: PROJContext

    init(_ pointer: OpaquePointer, context: PROJContext) {
        self.pointer = pointer
        self.context = context
    }

    deinit { proj_destroy(pointer) }
}

/// A lock for PROJ objects shared between threads.
final class PROJLock: @unchecked Sendable {
    private let lock = NSLock()
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
