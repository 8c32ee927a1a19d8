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

        /// A one-line explanation.
        public var description: String {
            switch self {
            case .notFound(let paths): "the viewer's site resources are missing (looked in \(paths.joined(separator: ", ")))"
            case .unreadable(let path): "cannot read \(path)"
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

    /// Loads every file under a folder.
    /// - Parameter folder: The site's root folder.
    /// - Throws: `LoadError.unreadable`.
    public init(folder: URL) throws(LoadError) {
        var files: [String: File] = [:]
        let root = folder.standardizedFileURL.resolvingSymlinksInPath()
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let full = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard full.hasPrefix(root.path + "/") else { continue }
            let relative = String(full.dropFirst(root.path.count))
            guard let data = FileManager.default.contents(atPath: full) else { throw .unreadable(full) }
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
        throw .notFound(candidates.map(\.path))
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
        case "svg": "image/svg+xml"
        case "ico": "image/x-icon"
        case "md", "txt", "mit": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
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
