import Foundation
import Testing
import Meridian

/// What a user names is what is read, and what a message shows of it is safe: a PostGIS password never, a GDAL
/// connection prefix never a second file, an echoed input bounded, an encoding by its right name.
@Suite struct NamedSourceTests {
    /// A connection string libpq cannot read (an unquoted password with a space) is refused without a word of it:
    /// libpq's own message would quote "Tail" as a keyword.
    @Test func aConnectionStringLibpqRefusesIsNeverShown() {
        let connection = "PG:host=127.0.0.1 port=1 password=abc Tail"
        for command in [["buffer", connection, "--srs", "EPSG:32038", "--distance", "1mi"],
                        ["buffer", "-", "--srs", "EPSG:32038", "--distance", "1mi", "-o", connection, "--layer", "t"]] {
            let r = runCommand(command, stdin: "x,y\n2400000,450000\n")
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stderr == "meridian buffer: PG:(connection string not shown): cannot connect: libpq cannot read the "
                + "connection string: missing \"=\" after \"…\" in connection info string\n", "\(command)")
        }
    }
}
