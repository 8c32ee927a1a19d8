import CPROJ
import Foundation
import MeridianCore

/// Owns one PROJ context: created in `init`, destroyed in `deinit`. PROJ's log messages are captured (never
/// printed to stderr) and put into thrown errors. A context and the objects made with it are used by one thread
/// at a time; `SpatialReference` and `Transformation` guard theirs with a lock.
final class PROJContext: @unchecked Sendable {
    let handle: OpaquePointer
    private(set) var messages: [String] = []

    init() {
        handle = proj_context_create()
        proj_context_set_enable_network(handle, 0)
        proj_log_level(handle, PJ_LOG_ERROR)
        proj_log_func(handle, Unmanaged.passUnretained(self).toOpaque()) { userdata, _, message in
            guard let userdata, let message else { return }
            let context = Unmanaged<PROJContext>.fromOpaque(userdata).takeUnretainedValue()
            context.messages.append(String(cString: message))
            if context.messages.count > 16 { context.messages.removeFirst() }
        }
    }

    deinit { proj_context_destroy(handle) }

    /// The last thing PROJ said, or its error string for the context's errno.
    func lastMessage() -> String {
        if let m = messages.last { return m }
        let errno = proj_context_errno(handle)
        if errno != 0, let s = proj_context_errno_string(handle, errno) { return String(cString: s) }
        return "unknown PROJ error"
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
