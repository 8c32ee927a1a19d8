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
}
