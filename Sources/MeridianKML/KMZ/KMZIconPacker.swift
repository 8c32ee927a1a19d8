import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which files of the disk saving a KMZ may pack as icons (`KMLDataset.localIconAccess`).
///
/// A document someone was sent can name any path in an `<Icon><href>` (`/etc/shadow`, `file:///…`,
/// `../../.ssh/id_rsa`, a symbolic link beside it): converting it to a KMZ must not carry the converter's files
/// into an archive that is then shared. So only a document built in code (its author chose the paths) may pack
/// any local file; a document read from a KML file packs only regular files inside its own folder, and one read
/// from a KMZ or from bytes packs nothing from the disk.
public enum KMLLocalIconAccess: Sendable, Hashable {
    /// Any local file the document names (a document built in code). Relative hrefs resolve against the current
    /// directory and are packed when they name a regular file; a `file:` or absolute href naming no readable
    /// regular file is an error (`KMLError.missingResource`).
    case anywhere
    /// Only regular files inside this folder once `..` and symbolic links are resolved (a document read from a
    /// KML file: its own folder). Relative hrefs resolve against the folder; any other local href stays a link,
    /// with a warning.
    case insideFolder(URL)
    /// No file of the disk (a document read from a KMZ or from bytes: its icons are the archive's own entries).
    /// Local hrefs that name no archive entry stay links, with a warning.
    case none
}

/// Chooses and reads the local icon files a KMZ packs under `files/`, following a `KMLLocalIconAccess`, and says
/// why each local href it does not pack stays a link.
struct KMZIconPacker {
    /// Where files may come from.
    let access: KMLLocalIconAccess
    /// `maximumResourceBytes` bounds each icon, `maximumTotalResourceBytes` all of them.
    let limits: KMZLimits
    /// Hrefs rewritten to the entries they were packed as.
    private(set) var hrefs: [String: String] = [:]
    /// The packed entries, in packing order.
    private(set) var entries: [(name: String, data: Data)] = []
    /// One line per local href left as a link.
    private(set) var warnings: [String] = []
    /// Entry names taken (the archive's own resources, `doc.kml`, packed icons).
    private var used: Set<String>
    /// The entry each resolved file was packed as, so two spellings of one file pack it once.
    private var entryForPath: [String: String] = [:]
    /// Bytes packed so far.
    private var total: UInt64 = 0

    /// A packer for a dataset whose archive already holds `taken` entries.
    init(access: KMLLocalIconAccess, limits: KMZLimits, taken: Set<String>) {
        self.access = access
        self.limits = limits
        used = taken.union(["doc.kml"])
    }

    /// Packs the file `href` names if the access allows it, or records why it stays a link.
    /// - Throws: `KMLError.missingResource` only under `.anywhere`, for a `file:` or absolute href whose file
    ///   cannot be packed.
    mutating func pack(_ href: String) throws(KMLError) {
        guard let local = Self.localPath(href) else { return }  // a web URL, a fragment: links by nature
        let path: String
        switch access {
        case .none:
            warnings.append("icon \(href) was kept as a link: icons of a KMZ or of a document read from memory are "
                + "packed only from the archive, never from the disk")
            return
        case .anywhere:
            path = local.isAbsolute ? local.path : FileManager.default.currentDirectoryPath + "/" + local.path
        case .insideFolder(let folder):
            path = local.isAbsolute ? local.path : folder.path + "/" + local.path
        }
        switch resolveAndRead(path) {
        case .success(let (resolved, data)):
            add(href, resolved: resolved, data: data)
        case .failure(let failure):
            if case .anywhere = access {
                if local.isAbsolute { throw .missingResource(href: href, reason: failure.reason) }
                return  // a relative href naming nothing here may name a file beside the document's reader
            }
            warnings.append("icon \(href) was kept as a link, not packed: \(failure.reason)")
        }
    }

    /// Records a packed file under a free `files/` name (or the name it was already packed as).
    private mutating func add(_ href: String, resolved: String, data: Data?) {
        if let entry = entryForPath[resolved] {
            hrefs[href] = entry
            return
        }
        guard let data else { return }
        let name = URL(fileURLWithPath: resolved).lastPathComponent
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        var entry = "files/\(name)"
        var k = 1
        while used.contains(entry) {
            entry = "files/\(stem)-\(k)\(ext.isEmpty ? "" : "." + ext)"
            k += 1
        }
        used.insert(entry)
        entries.append((entry, data))
        hrefs[href] = entry
        entryForPath[resolved] = entry
        total += UInt64(data.count)
    }

    /// The local path an href names (a `file:` URL, an absolute path, or a relative path), or `nil` for a URL of
    /// another scheme (`http:`, `data:`, …), a fragment or an empty href.
    static func localPath(_ href: String) -> (path: String, isAbsolute: Bool)? {
        if href.isEmpty || href.hasPrefix("#") { return nil }
        if href.lowercased().hasPrefix("file:") {
            guard let url = URL(string: href), url.isFileURL, !url.path.isEmpty else { return (href, true) }
            return (url.path, true)
        }
        if href.hasPrefix("/") { return (href, true) }
        if let colon = href.firstIndex(of: ":"), href.distance(from: href.startIndex, to: colon) > 1,
           href[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) {
            return nil  // a URL scheme (one letter before the colon would be a Windows drive)
        }
        return (href, false)
    }

    /// The resolved path and content of a regular file the access allows, or why it cannot be packed. The file
    /// is opened once, without following a final symbolic link, and checked through that descriptor, so what is
    /// checked is what is read. The content is `nil` when that file was already packed.
    private func resolveAndRead(_ path: String) -> Result<(String, Data?), ReadFailure> {
        guard let real = realpath(path, nil) else {
            return .failure(ReadFailure(errno == ENOENT || errno == ENOTDIR ? "no such file" : Self.systemReason()))
        }
        let resolved = String(cString: real)
        free(real)
        if case .insideFolder(let folder) = access {
            guard let root = realpath(folder.path, nil) else {
                return .failure(ReadFailure("the document's folder \(folder.path) cannot be resolved"))
            }
            let base = String(cString: root)
            free(root)
            guard resolved.hasPrefix(base == "/" ? "/" : base + "/") else {
                return .failure(ReadFailure("it is outside the document's folder \(base) (resolved to \(resolved))"))
            }
        }
        if entryForPath[resolved] != nil { return .success((resolved, nil)) }
        let left = limits.maximumTotalResourceBytes - min(total, limits.maximumTotalResourceBytes)
        return Self.regularFileContent(resolved, limit: min(limits.maximumResourceBytes, left)).map { (resolved, $0) }
    }

    /// The content of a regular file of at most `limit` bytes.
    private static func regularFileContent(_ path: String, limit: UInt64) -> Result<Data, ReadFailure> {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ReadFailure(systemReason())) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(ReadFailure(systemReason())) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            return .failure(ReadFailure("it is not a regular file (\(kind(st.st_mode)))"))
        }
        guard UInt64(st.st_size) <= limit else {
            return .failure(ReadFailure("it holds \(st.st_size) bytes, more than the \(limit) bytes icons may still take"))
        }
        var data = Data(count: Int(st.st_size))
        var offset = 0
        while offset < data.count {
            let n = data.withUnsafeMutableBytes { p in read(fd, p.baseAddress! + offset, p.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n == 0 ? .success(data.prefix(offset)) : .failure(ReadFailure(systemReason())) }
            offset += n
        }
        return .success(data)
    }

    /// What a non-regular file is, for the reason given.
    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "not a plain file"
        }
    }

    /// The operating system's message for `errno`.
    private static func systemReason() -> String { String(cString: strerror(errno)) }
}

/// Why an icon file was not packed.
struct ReadFailure: Error {
    /// The reason, a phrase.
    let reason: String
    /// Wraps a reason.
    init(_ reason: String) { self.reason = reason }
}
