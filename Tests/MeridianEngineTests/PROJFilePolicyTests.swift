import Foundation
import MeridianCore
import Testing

@testable import MeridianEngine

/// What PROJ may read (`PROJFilePolicy`): a spatial reference from a data file names grid and init files, and none
/// outside PROJ's data directories, nor any that is not a regular file, is opened.
@Suite("PROJ file policy")
struct PROJFilePolicyTests {
    /// The decision from the text of a path: bare names are looked up in the data directories only, anything else
    /// must lie inside one of them once `.` and `..` are resolved.
    @Test func decisionsFromThePathAlone() throws {
        let data = try #require(PROJFilePolicy.allowedDirectories.last)
        #expect(PROJFilePolicy.decision(for: "\(data)/BETA2007.gsb") == .read("\(data)/BETA2007.gsb"))
        #expect(PROJFilePolicy.decision(for: "\(data)/./sub//x.tif") == .read("\(data)/sub/x.tif"))
        #expect(PROJFilePolicy.decision(for: "us_noaa_conus.tif") == .absent)
        for refused in ["/etc/passwd", "\(data)/../../etc/passwd", "\(data)", "\(data)x/y.tif", "./x.gsb", "../x.gsb",
                        "~/x.gsb", "sub/x.gsb", "/dev/stdin", ""] {
            #expect(PROJFilePolicy.decision(for: refused) == .refuse, "\(refused)")
        }
        #expect(PROJFilePolicy.lexicallyNormal("/a/./b/../../../c//d/") == "/c/d")
    }

    /// Every way a definition names a file, pointing at a readable file outside the data directories, at a FIFO (which
    /// an open would block on forever), at standard input and at relative paths: refused when the spatial reference is
    /// made, naming the path as written, and nothing is read (the secret's bytes never reach PROJ: it would report a
    /// corrupt grid instead).
    @Test func definitionsNamingFilesOutsideTheDataDirectoriesAreRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-proj-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("secret.gsb").path
        try Data("NUM_OREC secret".utf8).write(to: URL(fileURLWithPath: secret))
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Were the FIFO opened, the open would wait for a writer: this one comes after 10 s, so that a regression
        // fails the test instead of hanging the suite.
        let unblocker = FIFOUnblocker(path: fifo, after: 10)
        defer { unblocker.finish() }

        for path in [secret, fifo, "/dev/stdin", "../meridian-grid.gsb", "./meridian-grid.gsb"] {
            let definitions = [
                "+proj=longlat +ellps=GRS80 +nadgrids=\(path) +type=crs",
                "+init=\(path):1",
                "PROJCS[\"custom\",GEOGCS[\"custom\",DATUM[\"d\",SPHEROID[\"s\",6378000,298.3]],PRIMEM[\"Greenwich\",0],"
                    + "UNIT[\"degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
                    + "PARAMETER[\"central_meridian\",3.5],PARAMETER[\"scale_factor\",0.9996],"
                    + "PARAMETER[\"false_easting\",500000],UNIT[\"metre\",1],EXTENSION[\"PROJ4\",\"+proj=tmerc +lon_0=3.5 "
                    + "+k=0.9996 +x_0=500000 +a=6378000 +rf=298.3 +nadgrids=\(path) +units=m +no_defs\"]]",
                Self.boundCRS(parameterFile: path),
            ]
            for definition in definitions {
                #expect(throws: EngineError.fileRefused(path), "\(definition)") {
                    try SpatialReference(parsing: definition)
                }
            }
        }
        #expect(!unblocker.didOpen, "PROJ opened the FIFO")
        let refusal = EngineError.fileRefused(secret).description
        #expect(refusal.hasPrefix("the spatial reference names the file '\(secret)', which is not read: grid and init "
            + "files are read only from PROJ's data directories ("))
        #expect(!refusal.contains("\n"))
    }

    /// A grid inside PROJ's data directory is read, by its bare name or by its full path, with the same result: the
    /// one PROJ's own `cs2cs` gives with that grid (DHDN to ETRS89 in Germany, BETA2007.gsb from proj-data;
    /// `echo "10 51" | cs2cs -f %.9f +proj=longlat +ellps=bessel +nadgrids=BETA2007.gsb +to +proj=longlat +datum=WGS84`
    /// prints 9.998797155 50.998746268, about 220 m from the point; compared to 1e-9°, the printed rounding of 5e-10°
    /// with a margin). Without the grid the answer would be hundreds of metres away.
    @Test func aGridInTheDataDirectoryIsRead() throws {
        let directory = try #require(PROJFilePolicy.allowedDirectories.first {
            FileManager.default.fileExists(atPath: "\($0)/BETA2007.gsb")
        }, "proj-data's BETA2007.gsb")
        for grid in ["BETA2007.gsb", "\(directory)/BETA2007.gsb"] {
            let source = try SpatialReference(projString: "+proj=longlat +ellps=bessel +nadgrids=\(grid)")
            let shifted = try GeometryEngine.project(Point(x: 10, y: 51, spatialReference: source), into: .wgs84)
            #expect(abs(shifted.x - 9.998797155) < 1e-9 && abs(shifted.y - 50.998746268) < 1e-9, "\(grid): \(shifted)")
        }
    }

    /// A bare grid name that no data directory holds is a missing grid, as on a machine without it (not a refusal):
    /// an optional grid (`@`) is skipped.
    @Test func aMissingGridByNameIsMissingNotRefused() throws {
        let sr = try SpatialReference(projString: "+proj=longlat +ellps=GRS80 +nadgrids=@meridian-no-such-grid.gsb")
        let p = try GeometryEngine.project(Point(x: 10, y: 51, spatialReference: sr), into: .wgs84)
        #expect(abs(p.x - 10) < 1e-6 && abs(p.y - 51) < 1e-6)
    }

    /// A WKT2 BoundCRS whose transformation is an NTv2 grid at `path`.
    static func boundCRS(parameterFile path: String) -> String {
        let cs = "CS[ellipsoidal,2],AXIS[\"latitude\",north],AXIS[\"longitude\",east],ANGLEUNIT[\"degree\",0.0174532925199433]"
        return "BOUNDCRS[SOURCECRS[GEOGCRS[\"local\",DATUM[\"local\",ELLIPSOID[\"GRS 1980\",6378137,298.257222101]],\(cs)]],"
            + "TARGETCRS[GEOGCRS[\"WGS 84\",DATUM[\"World Geodetic System 1984\",ELLIPSOID[\"WGS 84\",6378137,298.257223563]],"
            + "\(cs)]],ABRIDGEDTRANSFORMATION[\"local to WGS 84\",METHOD[\"NTv2\",ID[\"EPSG\",9615]],"
            + "PARAMETERFILE[\"Latitude and longitude difference file\",\"\(path)\"]]]"
    }
}

/// Opens a FIFO for writing after a delay (retrying until a reader waits on it), to release a reader that should never
/// have opened it; records whether one did.
final class FIFOUnblocker: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = false
    private var opened = false

    init(path: String, after seconds: Double) {
        Thread.detachNewThread { [self] in
            let start = Date()
            while !isFinished {
                if Date().timeIntervalSince(start) >= seconds {
                    let fd = open(path, O_WRONLY | O_NONBLOCK)
                    if fd >= 0 {
                        lock.withLock { opened = true }
                        close(fd)
                    }
                }
                usleep(50_000)
            }
        }
    }

    private var isFinished: Bool { lock.withLock { finished } }

    /// Whether a reader had the FIFO open when the writer came.
    var didOpen: Bool { lock.withLock { opened } }

    /// Stops the writer.
    func finish() { lock.withLock { finished = true } }
}
