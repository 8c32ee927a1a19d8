import CGDAL

/// libpq's own parser of connection strings (`PQconninfoParse`), from the libpq that libgdal loaded for its PostGIS
/// driver: what a `PG:` string means is decided by the code that will read it, never by a second parser.
enum LibPQ {
    /// One option libpq read from a connection string.
    struct Option: Sendable, Hashable {
        /// libpq's keyword, e.g. `host`, `password`.
        let keyword: String
        /// The value as libpq holds it (unquoted, unescaped, percent-decoded).
        let value: String
        /// Whether libpq marks the option as one whose value is hidden (`dispchar` `*`: `password`, `sslpassword`).
        let isSecret: Bool
    }

    /// The function table, or why libpq could not be found: computed once, after libgdal was loaded (so that the
    /// libpq found is the one GDAL's driver calls).
    static let loaded: Result<MeridianPQFunctions, GDALUnavailable> = {
        if case .failure(let failure) = GDALLibrary.loaded { return .failure(failure) }
        var message = [CChar](repeating: 0, count: 1024)
        guard let table = meridian_pq_load(&message, message.count) else {
            let reason = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
                                as: UTF8.self)
            return .failure(GDALUnavailable(reason: "libpq: \(reason)"))
        }
        return .success(table.pointee)
    }()

    /// Parses a connection string (keyword/value or `postgresql://` URI) as `PQconnectdb` would.
    /// - Parameter conninfo: The string libpq is given (after GDAL's `PG:` prefix and its own options).
    /// - Returns: The options set in the string, in libpq's order; or libpq's message (or why libpq is unavailable,
    ///   or that a value is not UTF-8 text).
    static func parse(_ conninfo: String) -> Result<[Option], ParseFailure> {
        let pq: MeridianPQFunctions
        switch loaded {
        case .success(let table): pq = table
        case .failure(let failure): return .failure(ParseFailure(message: failure.description, isLibPQMessage: false))
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = pq.PQconninfoParse(conninfo, &error) else {
            let message = error.map { String(cString: $0) } ?? "out of memory"
            if let error { pq.PQfreemem(error) }
            return .failure(ParseFailure(message: message, isLibPQMessage: true))
        }
        defer { pq.PQconninfoFree(options) }
        var parsed: [Option] = []
        var i = 0
        while let keyword = options[i].keyword {
            if let bytes = options[i].val {
                // A percent-decoded URI value may be any bytes; GDAL is given the string as text, so it must be UTF-8.
                guard let value = String(validatingCString: bytes) else {
                    return .failure(ParseFailure(message: "the value of \(String(cString: keyword)) is not UTF-8 text",
                                                 isLibPQMessage: false))
                }
                let secret = options[i].dispchar.map { String(cString: $0).contains("*") } ?? false
                parsed.append(Option(keyword: String(cString: keyword), value: value, isSecret: secret))
            }
            i += 1
        }
        return .success(parsed)
    }

    /// libpq refused a connection string (its message, which may quote parts of the string), or is unavailable.
    struct ParseFailure: Error, Sendable, Hashable {
        /// libpq's text, possibly of several lines (it may quote the string); or Meridian's, quoting nothing of it.
        let message: String
        /// Whether `message` is libpq's own.
        let isLibPQMessage: Bool
    }
}
