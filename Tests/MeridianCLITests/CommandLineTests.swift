import Foundation
import Testing

@testable import MeridianCLI
@testable import MeridianIO
import Meridian

/// The CLI's contract: exit codes, one-line errors, help, versions.
@Suite struct CommandLineTests {
    @Test func versionNamesTheLibraries() {
        let r = runCommand(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("meridian "))
        #expect(r.stdout.contains("GEOS 3."))
        #expect(r.stdout.contains("PROJ 9."))
    }

    @Test func everyCommandHasHelp() {
        for command in MeridianCommandLine.commands {
            let r = runCommand([command.name, "--help"])
            #expect(r.status == 0, "\(command.name) --help")
            #expect(r.stdout.hasPrefix("Usage:"))
            #expect(r.stdout.contains("meridian \(command.name) "))
        }
        #expect(runCommand(["--help"]).status == 0)
    }

    @Test func unknownCommandAndOptionAreUsageErrors() {
        let unknown = runCommand(["frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown command"))
        let option = runCommand(["srs", "EPSG:4326", "--frob"])
        #expect(option.status == 2)
        #expect(option.stderr == "meridian srs: unknown option --frob\n")
        #expect(runCommand([]).status == 2)
    }

    @Test func errorsAreOneLine() {
        let r = runCommand(["srs", "EPSG:999999"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("meridian srs: unknown spatial reference 'EPSG:999999'"))
        #expect(r.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func theBuiltBinaryBehavesLikeTheLibrary() throws {
        let version = try runBinary(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.contains("PROJ"))
        let bad = try runBinary(["buffer", "--srs", "EPSG:4326", "--distance", "1"], stdin: "lon,lat\n-97,32\n")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("projected spatial reference"))
        #expect(bad.stdout.isEmpty)
    }
}

/// `meridian srs` against the facts PROJ's database and the seed record for EPSG:32038.
@Suite struct SpatialReferenceCommandTests {
    @Test func texasNorthCentralAsJSON() throws {
        let r = runCommand(["srs", "EPSG:32038", "--json"])
        #expect(r.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "NAD27 / Texas North Central")
        #expect(object["isProjected"] as? Bool == true)
        #expect(object["unit"] as? String == "US survey foot")
        // Exact: 1200/3937 m, printed with enough digits to round-trip.
        #expect(object["metersPerUnit"] as? Double == 1200.0 / 3937.0)
        let area = try #require(object["areaOfUse"] as? [String: Any])
        // The seed hard-codes the same box: W −103.070, S 31.720, E −94.000, N 34.580.
        #expect(area["west"] as? Double == -103.07)
        #expect(area["south"] as? Double == 31.72)
        #expect(area["east"] as? Double == -94.0)
        #expect(area["north"] as? Double == 34.58)
        #expect((area["name"] as? String)?.contains("Texas") == true)
    }

    @Test func geographicAndTextForms() {
        let wgs = runCommand(["srs", "4326"])
        #expect(wgs.status == 0)
        #expect(wgs.stdout.contains("name:        WGS 84"))
        #expect(wgs.stdout.contains("kind:        geographic"))
        let proj = runCommand(["srs", "+proj=utm +zone=14 +datum=WGS84 +units=m"])
        #expect(proj.status == 0)
        #expect(proj.stdout.contains("kind:        projected"))
        #expect(proj.stdout.contains("(1.0 m)"))
    }
}

/// `meridian serve`'s stop: the server's stop runs on its own thread and is waited for at most the grace period, so
/// that a request thread stuck in a C call (no budget check reaches it) cannot keep the process from exiting.
@Suite struct ServeStopTests {
    @Test func aStopThatHangsIsNotWaitedForBeyondTheGracePeriod() {
        let start = Date()
        #expect(!ServeCommand.finishes(within: 0.3) { sleep(30) })
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(ServeCommand.finishes(within: 10) { usleep(10_000) })
        #expect(ServeCommand.stopGraceSeconds <= 1.5)
    }
}
