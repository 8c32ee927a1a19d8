import Foundation
import MeridianCore
import Testing
@testable import MeridianFeatureData

/// A real PostgreSQL 15 + PostGIS 3 (scripts/postgis.sh, started by scripts/test.sh; MERIDIAN_PG names it): tables
/// written in one transaction and read back, passwords never shown.
@Suite struct PostGISTests {
    /// A table name of its own per test (the tests run in parallel on one database).
    static func tableName(_ base: String) -> String { "\(base)_\(UUID().uuidString.prefix(8).lowercased())" }

    /// Sample points in EPSG:32038 with attributes.
    static func addresses(_ count: Int) -> [Feature] {
        (0..<count).map { i in
            Feature(geometry: .point(Point(x: 2_400_000.25 + Double(i), y: 450_000.125, spatialReference: TestSupport.texas)),
                    properties: ["number": .number(Double(100 + i)), "street": .string("Elm St \(i)")])
        }
    }

    static func addressTable(_ name: String) -> TableDescription {
        TableDescription(name: name, spatialReference: TestSupport.texas, geometryType: .point,
                         fields: [Field(name: "number", type: .int32), Field(name: "street", type: .text)])
    }

    @Test func aTableRoundTripsWithItsSRID() throws {
        let pg = try TestSupport.postGIS()
        let name = PostGISTests.tableName("addresses")
        try TestSupport.write(PostGISTests.addresses(25), to: pg, table: PostGISTests.addressTable(name))
        let source = try FeatureDataSource(path: pg)
        #expect(source.format == .postGIS && source.tableNames.contains(name))
        let (table, features) = try TestSupport.readAll(pg, table: name)
        #expect(table.spatialReference == TestSupport.texas, "SRID 32038 → EPSG:32038")
        #expect(table.geometryType == .point)
        let sorted = features.sorted { ($0.attributes["number"]?.intValue ?? 0) < ($1.attributes["number"]?.intValue ?? 0) }
        #expect(sorted.map(\.geometry) == PostGISTests.addresses(25).map(\.geometry))
        #expect(sorted.map { $0.attributes["street"] } == PostGISTests.addresses(25).map { $0.attributes["street"] })
    }

    @Test func aFailedWriteLeavesTheOldTable() throws {
        let pg = try TestSupport.postGIS()
        let name = PostGISTests.tableName("kept")
        try TestSupport.write(PostGISTests.addresses(2), to: pg, table: PostGISTests.addressTable(name))
        let writer = try FeatureTableWriter(path: pg, table: PostGISTests.addressTable(name))
        try writer.add(contentsOf: PostGISTests.addresses(10))
        var bad = PostGISTests.addresses(1)[0]
        bad.attributes["number"] = .string("not a number")
        #expect(throws: FeatureDataError.self) { try writer.add(bad) }
        #expect(try TestSupport.readAll(pg, table: name).1.count == 2, "rolled back: the old rows, not 10 new ones")
        // A new table that fails is not created at all.
        let fresh = PostGISTests.tableName("never")
        let failing = try FeatureTableWriter(path: pg, table: PostGISTests.addressTable(fresh))
        try failing.add(contentsOf: PostGISTests.addresses(3))
        failing.cancel()
        #expect(try !FeatureDataSource(path: pg).tableNames.contains(fresh))
    }

    @Test func overwriteReplacesAndItsAbsenceRefuses() throws {
        let pg = try TestSupport.postGIS()
        let name = PostGISTests.tableName("replaced")
        try TestSupport.write(PostGISTests.addresses(3), to: pg, table: PostGISTests.addressTable(name))
        try TestSupport.write(PostGISTests.addresses(5), to: pg, table: PostGISTests.addressTable(name))
        #expect(try TestSupport.readAll(pg, table: name).1.count == 5)
        #expect(throws: FeatureDataError.self) {
            try FeatureTableWriter(path: pg, table: PostGISTests.addressTable(name), overwrite: false)
        }
    }

    @Test func sqlLookingTableNamesAreQuotedNotRun() throws {
        let pg = try TestSupport.postGIS()
        let victim = PostGISTests.tableName("victim")
        try TestSupport.write(PostGISTests.addresses(1), to: pg, table: PostGISTests.addressTable(victim))
        let evil = "evil\"; DROP TABLE \(victim); --"
        try TestSupport.write(PostGISTests.addresses(2), to: pg, table: PostGISTests.addressTable(evil))
        let names = try FeatureDataSource(path: pg).tableNames
        #expect(names.contains(victim), "the other table survives")
        #expect(names.contains(evil), "the table has the literal name")
        #expect(try TestSupport.readAll(pg, table: evil).1.count == 2)
        #expect(throws: FeatureDataError.self) { try TestSupport.readAll(pg, table: "\(victim)' OR '1'='1") }
    }

    @Test func aFailedConnectionIsOneLineWithoutThePassword() throws {
        for connection in ["PG:host=127.0.0.1 port=1 dbname=nowhere user=u password=secret",
                           "PG:host=127.0.0.1 port=1 dbname=nowhere password='se cret\\' x'",
                           "PG:postgresql://u:secret@127.0.0.1:1/nowhere"] {
            do {
                _ = try FeatureDataSource(path: connection)
                Issue.record("connected to nothing: \(connection)")
            } catch {
                let text = error.description
                guard case .connectionFailed = error else { Issue.record("\(error)"); continue }
                #expect(!text.contains("secret") && !text.contains("se cret"), "\(text)")
                #expect(text.contains("***") && !text.contains("\n"), "\(text)")
            }
        }
        let tcp = try #require(ProcessInfo.processInfo.environment["MERIDIAN_PG_TCP"])
        let wrong = tcp.replacingOccurrences(of: "password=meridian", with: "password=hunter2-secret")
        #expect(wrong != tcp)
        do {
            _ = try FeatureDataSource(path: wrong)
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(!error.description.contains("hunter2"), "\(error)")
            #expect(error.description.contains("password authentication failed"), "the server's reason: \(error)")
        }
        #expect(try FeatureDataSource(path: tcp).format == .postGIS, "the right password connects")
    }

    @Test func writingToAnUnreachableDatabaseSaysSo() {
        #expect {
            try FeatureTableWriter(path: "PG:host=127.0.0.1 port=1 dbname=x password=secret",
                                   table: PostGISTests.addressTable("t"))
        } throws: { error in
            guard case .connectionFailed = error as? FeatureDataError else { return false }
            return !"\(error)".contains("secret")
        }
    }

    @Test func passwordsAreRedactedInEverySpelling() {
        let cases = [
            ("PG:dbname=a password=x1 user=b", "PG:dbname=a password=*** user=b"),
            ("PG:dbname=a password = 'p w\\'d' user=b", "PG:dbname=a password = *** user=b"),
            ("PG:postgresql://me:pa:ss@host:5432/db?sslmode=require", "PG:postgresql://me:***@host:5432/db?sslmode=require"),
            ("PG:postgresql://host/db?user=me&password=x2&sslmode=require", "PG:postgresql://host/db?user=me&password=***&sslmode=require"),
            ("PG:dbname=a", "PG:dbname=a"),
        ]
        for (given, shown) in cases { #expect(PostGISConnection(given)?.redacted == shown) }
        let c = PostGISConnection("PG:dbname=a password='p w\\'d'")
        #expect(c?.scrub("the server said p w'd is wrong") == "the server said *** is wrong")
    }

    /// Passwords are found where libpq reads them, not by a pattern: a backslash-escaped space and a double quote
    /// belong to an unquoted value, a URI's password is percent-decoded, and a string libpq refuses is never shown
    /// (its message elides what it quotes of the string).
    @Test func passwordsAreRedactedAsLibpqReadsThem() throws {
        let cases = [
            ("PG:host=h password=abc\\ Tail dbname=d", "PG:host=h password=*** dbname=d"),
            ("PG:host=h password=ab\"Tail", "PG:host=h password=***"),
            ("PG:host=h password='q\\' x'dbname=d", "PG:host=h password=***dbname=d"),
            ("PG:postgresql://u:Top%20Secret@h/db", "PG:postgresql://u:***@h/db"),
            ("PG:postgresql://u:p?w@h/db?password=Q%26A&sslmode=disable", "PG:postgresql://u:***@h/db?password=***&sslmode=disable"),
            ("PG:host=h sslpassword=k3y", "PG:host=h sslpassword=***"),
            ("PG:host=h tables=t password=pw1 active_schema=s", "PG:host=h tables=t password=*** active_schema=s"),
            ("PG:user=sesame host=h password=sesame", "PG:user=*** host=h password=***"),
        ]
        for (given, shown) in cases {
            let connection = try #require(PostGISConnection(given))
            #expect(connection.redacted == shown, "\(given)")
            #expect(connection.refusal == nil, "\(given)")
        }
        let escaped = try #require(PostGISConnection("PG:host=h password=abc\\ Tail"))
        #expect(escaped.scrub("auth failed for abc Tail and abc\\ Tail") == "auth failed for *** and ***")
        let uri = try #require(PostGISConnection("PG:postgresql://u:Top%20Secret@h/db"))
        #expect(uri.scrub("password \"Top Secret\" (Top%20Secret) rejected") == "password \"***\" (***) rejected")
        // The quote GDAL is given is scrubbed too.
        #expect(uri.openString == "PG:user='u' password='Top Secret' dbname='db' host='h' connect_timeout='10'")
        #expect(uri.scrub(uri.openString ?? "") == "PG:user='u' password=*** dbname='db' host='h' connect_timeout='10'")

        for (given, reason) in [
            ("PG:host=h password=ab Tail", "missing \"=\" after \"…\" in connection info string"),
            ("PG:host=h password='ab Tail", "unterminated quoted string in connection info string"),
            ("PG:host=h Tail=ab", "invalid connection option \"…\""),
            ("PG:postgresql://u:Tail@[::1/db", "end of string reached when looking for matching \"]\" in IPv6 host address in URI: \"…\""),
            ("PG:postgresql://u:Ta%zzil@h/db", "invalid percent-encoded token: \"…\""),
        ] {
            let connection = try #require(PostGISConnection(given))
            #expect(connection.redacted == "PG:(connection string not shown)", "\(given)")
            #expect(connection.refusal == "libpq cannot read the connection string: \(reason)", "\(given)")
            #expect(connection.openString == nil)
            #expect {
                try FeatureDataSource(path: given)
            } throws: { error in
                "\(error)" == "PG:(connection string not shown): cannot connect: libpq cannot read the connection string: \(reason)"
            }
        }
    }

    /// GDAL gets the options libpq read, rebuilt, with a connect timeout unless libpq got one: whatever the string's
    /// form and wherever the word "connect_timeout" appears in it.
    @Test func aConnectTimeoutIsAddedUnlessLibpqGotOne() throws {
        let cases = [
            ("PG:host=h dbname=d", "PG:dbname='d' host='h' connect_timeout='10'"),
            ("PG:postgresql://h:5433/d?sslmode=disable", "PG:dbname='d' host='h' port='5433' sslmode='disable' connect_timeout='10'"),
            ("PG:postgres://h/d", "PG:dbname='d' host='h' connect_timeout='10'"),
            ("PG:host=h dbname='connect_timeout=1' application_name=connect_timeout", "PG:dbname='connect_timeout=1' host='h' application_name='connect_timeout' connect_timeout='10'"),
            ("PG:host=h connect_timeout=3", "PG:connect_timeout='3' host='h'"),
            ("PG:postgresql://h/d?connect_timeout=4", "PG:connect_timeout='4' dbname='d' host='h'"),
            ("PG:host=h password='a\\'b\\\\c' tables=t1,t2", "PG:password='a\\'b\\\\c' host='h' tables='t1,t2' connect_timeout='10'"),
        ]
        for (given, opened) in cases { #expect(PostGISConnection(given)?.openString == opened, "\(given)") }
    }

    /// A server that accepts the TCP connection and never answers (a black hole) fails at the connect timeout, in
    /// both forms of the string (the URI form and a keyword form whose values mention "connect_timeout" waited for
    /// ever); the message names the connection without its password.
    @Test(arguments: ["PG:postgresql://u:hole-secret@127.0.0.1:PORT/db",
                      "PG:host=127.0.0.1 port=PORT dbname=connect_timeout password=hole-secret"])
    func aServerThatNeverAnswersTimesOut(_ template: String) throws {
        let hole = try BlackHole()
        defer { hole.close() }
        let connection = template.replacingOccurrences(of: "PORT", with: String(hole.port))
        let started = Date()
        #expect {
            try FeatureDataSource(path: connection)
        } throws: { error in
            guard case .connectionFailed = error as? FeatureDataError else { return false }
            return !"\(error)".contains("hole-secret") && "\(error)".contains("timeout")
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds < Double(PostGISConnection.defaultConnectTimeout) + 8, "waited \(seconds) s")
    }
}

/// A TCP port on 127.0.0.1 that listens and never accepts: the kernel completes the handshake, nothing ever answers.
struct BlackHole {
    /// The listening socket.
    let fd: Int32
    /// Its port.
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                Foundation.bind(fd, pointer, length) == 0 && listen(fd, 8) == 0
                    && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { Foundation.close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() { Foundation.close(fd) }
}
