import Foundation
import Meridian
import Testing

/// Inputs that cannot be read as they are: every verb says so in one line naming the file (and the feature), exit 1,
/// never an answer made without part of the input.
@Suite struct UnreadableInputTests {
    /// Runs a program, returning its exit status and standard error.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let r = try runProgram(program, arguments)
        return (r.status, r.stderr)
    }

    /// Three points in a GeoPackage written by the library (fid 1 to 3), the geometry of fid 2 replaced by one byte.
    static func corruptGeoPackage(in dir: URL) throws -> URL {
        let gpkg = dir.appendingPathComponent("points.gpkg")
        let table = TableDescription(name: "points", spatialReference: .wgs84, geometryType: .point,
                                     fields: [Field(name: "name", type: .text)])
        let writer = try FeatureTableWriter(path: gpkg.path, table: table)
        for i in 0..<3 {
            try writer.add(Feature(geometry: .point(Point(x: -97 + Double(i), y: 32, spatialReference: .wgs84)),
                                   properties: ["name": .string("p\(i)")]))
        }
        try writer.finish()
        let r = try run("/usr/bin/ogrinfo", [gpkg.path, "-sql", "UPDATE points SET geom = X'00' WHERE fid = 2"])
        #expect(r.status == 0, "\(r.stderr)")
        return gpkg
    }

    @Test func anUnreadableGeometryIsTheSameErrorForEveryVerb() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpkg = try Self.corruptGeoPackage(in: dir)
        let reason = "\(gpkg.path), layer 'points', feature 2: its geometry cannot be read: a blob of 1 byte(s) that is not a GeoPackage geometry"
        let runs: [(String, [String])] = [
            ("project", ["project", gpkg.path, "--to", "EPSG:3857", "-o", dir.appendingPathComponent("p.wkt").path]),
            ("kml", ["kml", "convert", gpkg.path, dir.appendingPathComponent("p.kml").path]),
            ("buffer", ["buffer", gpkg.path, "--geodesic", "--distance", "1km", "-o", dir.appendingPathComponent("b.geojson").path]),
            ("buffer", ["buffer", gpkg.path, "--geodesic", "--distance", "1km", "--union",
                        "-o", dir.appendingPathComponent("u.geojson").path]),
            ("op", ["op", "convex-hull", gpkg.path, "-o", dir.appendingPathComponent("h.wkt").path]),
            ("measure", ["measure", "--geodesic", gpkg.path]),
        ]
        for (verb, arguments) in runs {
            let r = runCommand(arguments)
            #expect(r.status == 1, "\(arguments)")
            #expect(r.stderr == "meridian \(verb): \(reason)\n", "\(arguments)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["points.gpkg"])
    }

    /// The built `meridian` (MERIDIAN_BIN, else .build/debug/meridian).
    static let binary = ProcessInfo.processInfo.environment["MERIDIAN_BIN"]
        ?? packageRoot.appendingPathComponent(".build/debug/meridian").path

    /// Runs the built `meridian` (or `program`) with standard input read from `stdinPath`; returns the status, standard error and
    /// the seconds it took.
    static func runBinary(_ arguments: [String], stdinPath: String? = nil, program: String = binary) throws
        -> (status: Int32, stderr: String, seconds: Double)
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = stdinPath.flatMap { FileHandle(forReadingAtPath: $0) } ?? FileHandle.nullDevice
        let start = Date()
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: e, as: UTF8.self), Date().timeIntervalSince(start))
    }

    @Test func anEndlessDeviceIsJudgedByItsFirstBytes() throws {
        let found = "not GeoJSON, CSV or WKT: found binary data: a NUL byte at line 1, column 1 (starts with 00 00 00 00)"
        let named = try Self.runBinary(["buffer", "/dev/zero", "--geodesic", "--distance", "1km"])
        #expect(named.status == 1)
        #expect(named.stderr == "meridian buffer: /dev/zero: \(found)\n")
        #expect(named.seconds < 5, "read \(named.seconds) s")
        let piped = try Self.runBinary(["buffer", "-", "--geodesic", "--distance", "1km"], stdinPath: "/dev/zero")
        #expect(piped.status == 1)
        #expect(piped.stderr == "meridian buffer: stdin: \(found)\n")
        #expect(piped.seconds < 5, "read \(piped.seconds) s")
    }

    /// A FIFO fed `bytes` by another thread (which waits for the command to open it).
    static func fifo(in dir: URL, feeding bytes: Data) throws -> URL {
        let fifo = dir.appendingPathComponent("input.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // A thread of its own: the writer blocks in open(2) until the command opens the FIFO, and a queue's thread
        // might not be free while the test waits for the command.
        Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo.path) else { return }
            try? handle.write(contentsOf: bytes)
            try? handle.close()
        }.start()
        return fifo
    }

    /// Lets a FIFO's writer go when the command did not open the FIFO (a usage error): its open then returns.
    static func release(_ fifo: URL) {
        let fd = open(fifo.path, O_RDONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    }

    @Test func aFifoOfTextIsReadAndAStreamTurningBinaryIsStopped() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        var csv = "name,lon,lat\n"
        for i in 0..<300 { csv += "p\(i),\(-100 + Double(i % 20) * 0.1),\(30 + Double(i / 20) * 0.1)\n" }
        let out = dir.appendingPathComponent("out.wkt")
        let fifo = try Self.fifo(in: dir, feeding: Data(csv.utf8))
        let text = try Self.runBinary(["buffer", fifo.path, "--geodesic", "--distance", "1km", "-o", out.path])
        Self.release(fifo)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(try String(contentsOf: out, encoding: .utf8).split(separator: "\n").count == 300)
        // The CSV, then /dev/zero without end, on standard input: stopped at the first NUL byte.
        let input = dir.appendingPathComponent("points.csv")
        try csv.write(to: input, atomically: true, encoding: .utf8)
        let binary = try Self.runBinary(["-c", "cat \"$1\" /dev/zero | exec \"$0\" buffer - --geodesic --distance 1km -o \"$2\"",
                                         Self.binary, input.path, dir.appendingPathComponent("out2.wkt").path],
                                        program: "/bin/sh")
        #expect(binary.status == 1)
        #expect(binary.stderr == "meridian buffer: stdin: binary data at byte \(csv.utf8.count + 1) (a NUL byte, which text has none of); stopped reading\n")
        #expect(binary.seconds < 5, "read \(binary.seconds) s")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["input.fifo", "out.wkt", "points.csv"])
    }
}
