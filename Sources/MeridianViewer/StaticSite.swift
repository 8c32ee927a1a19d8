import Foundation

/// The viewer's page (HTML, CSS, JS, icons and basemap data), read once into memory from the package's resources.
///
/// Files are served by exact path from a dictionary built at start-up, so no request can reach a file outside the
/// site folder.
public struct StaticSite: Sendable {
    /// Why the site could not be loaded.
    public enum LoadError: Error, Sendable, CustomStringConvertible {
        /// No candidate folder exists.
        case notFound([String])
        /// A file could not be read.
        case unreadable(String)
        /// The folder holds more files or bytes than the limits allow.
        case tooLarge(String)

        /// A one-line explanation.
        public var description: String {
            switch self {
            case .notFound(let paths): "the viewer's site resources are missing (looked in \(paths.joined(separator: ", ")))"
            case .unreadable(let path): "cannot read \(path)"
            case .tooLarge(let reason): reason
            }
        }
    }

    /// One file: its bytes and media type.
    public struct File: Sendable {
        /// The file's bytes.
        public let data: Data
        /// The media type sent as `Content-Type`.
        public let contentType: String
    }

    /// The files by URL path ("/index.html", "/data/texas-32038.json", …).
    public let files: [String: File]

    /// Creates a site from files (tests use this).
    /// - Parameter files: The files by URL path.
    public init(files: [String: File]) {
        self.files = files
    }

    /// Loads every file under a folder (files whose real path lies outside it, through symbolic links, are skipped).
    ///
    /// The whole site is held in memory, so the load stops with `LoadError.tooLarge` as soon as either limit is
    /// crossed (a file's size is checked before it is read).
    /// - Parameters:
    ///   - folder: The site's root folder.
    ///   - maximumFiles: Most files loaded, > 0 (default 20,000; the viewer's page has about 40, the DocC site of
    ///     `scripts/docs.sh` about 2,500).
    ///   - maximumBytes: Most bytes loaded in all, > 0 (default 256 MiB; the DocC site is about 20 MB).
    /// - Throws: `LoadError.unreadable`, `LoadError.tooLarge`.
    public init(folder: URL, maximumFiles: Int = 20_000, maximumBytes: Int = 256 << 20) throws(LoadError) {
        var files: [String: File] = [:]
        var total = 0
        let root = folder.standardizedFileURL.resolvingSymlinksInPath()
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey]
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys)
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let full = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard full.hasPrefix(root.path + "/") else { continue }
            let relative = String(full.dropFirst(root.path.count))
            guard files.count < maximumFiles else {
                throw .tooLarge("\(root.path) holds more than \(maximumFiles) files (the limit)")
            }
            let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
            guard size <= maximumBytes - total else {
                throw .tooLarge("\(root.path) holds more than \(maximumBytes) bytes (the limit) at \(relative)")
            }
            guard let data = FileManager.default.contents(atPath: full) else { throw .unreadable(full) }
            guard data.count <= maximumBytes - total else {
                throw .tooLarge("\(root.path) holds more than \(maximumBytes) bytes (the limit) at \(relative)")
            }
            total += data.count
            files[relative] = File(data: data, contentType: Self.contentType(forPath: relative))
        }
        self.files = files
    }

    /// Finds and loads the site shipped with the package.
    ///
    /// Looks where SwiftPM's `Bundle.module` looks (the `Meridian_MeridianViewer.resources` bundle beside the
    /// executable), then in the source tree this module was built from. Unlike `Bundle.module` it throws instead of
    /// stopping the process when neither exists. `MERIDIAN_VIEWER_SITE` overrides both.
    /// - Throws: `LoadError`.
    public static func bundled() throws(LoadError) -> StaticSite {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["MERIDIAN_VIEWER_SITE"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override))
        }
        let bundleName = "Meridian_MeridianViewer.resources"
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(bundleName).appendingPathComponent("Site"))
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(bundleName)
                .appendingPathComponent("Site"))
        }
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Site"))
        for c in candidates where FileManager.default.fileExists(atPath: c.appendingPathComponent("index.html").path) {
            return try StaticSite(folder: c)
        }
        throw .notFound(candidates.map { $0.path })
    }

    /// The media type for a file name's extension.
    /// - Parameter path: A path or file name.
    public static func contentType(forPath path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "json": "application/json; charset=utf-8"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "svg": "image/svg+xml"
        case "ico": "image/x-icon"
        case "md", "txt", "mit": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    /// Answers a GET or HEAD for a file of a site mounted under a path prefix (the documentation under "/docs"):
    /// the prefix is removed before the file is looked up, the bare prefix redirects to the prefix and a slash, and
    /// a folder's path without its trailing slash serves the folder's `index.html` (as static hosts do for DocC).
    /// - Parameters:
    ///   - request: The request; its path starts with `prefix`.
    ///   - prefix: The mount point, e.g. "/docs" (no trailing slash).
    /// - Returns: The file, a redirect, 404 or 405.
    public func respond(to request: HTTPRequest, mountedAt prefix: String) -> HTTPResponse {
        guard request.path != prefix else {
            return HTTPResponse(status: 301, headers: ["Location": prefix + "/", "Content-Type": "text/plain"],
                                body: Data("moved to \(prefix)/\n".utf8))
        }
        var inner = request
        inner.path = String(request.path.dropFirst(prefix.count))
        if !inner.path.hasSuffix("/"), files[inner.path] == nil, files[inner.path + "/index.html"] != nil {
            inner.path += "/"
        }
        return respond(to: inner)
    }

    /// Answers a GET or HEAD for a static file; "/" serves "/index.html".
    /// - Parameter request: The request.
    /// - Returns: The file, 404 or 405.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: ["Allow": "GET, HEAD", "Content-Type": "text/plain"],
                                body: Data("method not allowed\n".utf8))
        }
        var path = request.path
        if path.hasSuffix("/") { path += "index.html" }
        guard let file = files[path] else {
            return HTTPResponse(status: 404, headers: ["Content-Type": "text/plain; charset=utf-8"],
                                body: Data("not found: \(path)\n".utf8))
        }
        return HTTPResponse(
            status: 200,
            headers: ["Content-Type": file.contentType, "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"],
            body: file.data)  // libmicrohttpd omits the body of a HEAD response
    }
}
