import CPROJ

/// Facts about the linked PROJ library.
enum PROJInfo {
    static var version: String {
        let info = proj_info()
        return info.version.map { String(cString: $0) } ?? "unknown"
    }
}
