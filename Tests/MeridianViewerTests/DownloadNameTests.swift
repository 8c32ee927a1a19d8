import Foundation
import Testing

@testable import MeridianViewer

/// Download names in `Content-Disposition` (RFC 6266 with RFC 8187's `filename*`).
@Suite struct DownloadNameTests {
    /// The `filename*` value decoded as a browser does (percent-decoding of UTF-8 bytes).
    func decodedExtended(_ header: String) throws -> String {
        let marker = "filename*=UTF-8''"
        let start = try #require(header.range(of: marker)).upperBound
        return try #require(String(header[start...]).removingPercentEncoding)
    }

    /// The ASCII `filename` value.
    func plain(_ header: String) throws -> String {
        let start = try #require(header.range(of: "filename=\"")).upperBound
        let end = try #require(header[start...].firstIndex(of: "\""))
        return String(header[start..<end])
    }

    @Test func aUnicodeNameWithAQuoteKeepsEveryLetter() throws {
        let header = DownloadName(#"quote"name Überprüfung 東京.kmz"#).contentDisposition
        #expect(try decodedExtended(header) == "quote_name Überprüfung 東京.kmz")
        #expect(try plain(header) == "quote_name Uberprufung _.kmz")
        #expect(header.hasPrefix("attachment; filename=\""))
        // Percent-encoded UTF-8: Ü is C3 9C, 東 is E6 9D B1; the space and the quote's replacement as RFC 8187 says.
        #expect(header.hasSuffix("filename*=UTF-8''quote_name%20%C3%9Cberpr%C3%BCfung%20%E6%9D%B1%E4%BA%AC.kmz"))
    }

    @Test func pathsAreNeverEchoed() throws {
        for name in ["a/../../etc/passwd", #"..\..\windows\system32\x.kmz"#, "/etc/passwd.kmz", "../../x"] {
            let header = DownloadName(name).contentDisposition
            let ascii = try plain(header)
            let unicode = try decodedExtended(header)
            for value in [ascii, unicode] {
                #expect(!value.contains("/") && !value.contains("\\"), "\(name) → \(value)")
                #expect(!value.hasPrefix("."), "\(name) → \(value)")
            }
            #expect(!header.contains(name), "\(name)")
        }
        #expect(DownloadName("a/../../etc/passwd").unicode == "a_.._.._etc_passwd")
    }

    @Test func controlFormatAndSpecialCharactersAreReplaced() throws {
        let name = DownloadName("a\u{0}b\r\nc\u{7F}d\u{202E}gnp.exe;x=%41\"y<>:|?*.kml")
        #expect(name.unicode == "a_b__c_d_gnp.exe;x=%41_y______.kml")
        #expect(name.ascii == "a_b__c_d_gnp.exe;x=_41_y______.kml")
        let header = name.contentDisposition
        #expect(header.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F })
        // The only quotes are the two around the ASCII name.
        #expect(header.filter { $0 == "\"" }.count == 2)
    }

    @Test func emptyHiddenAndOverlongNames() throws {
        #expect(DownloadName("").unicode == "download")
        #expect(DownloadName(".kmz").unicode == "kmz")
        #expect(DownloadName("///").unicode == "___")
        #expect(DownloadName(". .").unicode == "download")
        #expect(DownloadName("...hidden.kml").unicode == "hidden.kml")
        #expect(DownloadName("  spaced out .  ").unicode == "spaced out")
        let long = DownloadName(String(repeating: "東", count: 240) + ".kmz")
        #expect(long.unicode.utf8.count <= DownloadName.maximumUTF8Bytes)
        #expect(long.unicode.hasSuffix("東.kmz"))
        #expect(DownloadName(String(repeating: "a", count: 240) + ".kmz").unicode.count == DownloadName.maximumUTF8Bytes)
    }

    @Test func savedKMLUsesTheSanitisedName() throws {
        let api = ViewerAPI(site: try StaticSite.bundled())
        let kml = Data("<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document/></kml>".utf8).base64EncodedString()
        let body = #"{"name":"quote\"name Überprüfung 東京","placemarks":[],"source":{"data":"\#(kml)","edits":[]}}"#
        let r = api.handle(HTTPRequest(method: "POST", path: "/api/kml", body: Data(body.utf8)))
        #expect(r.status == 200)
        let header = try #require(r.header("Content-Disposition"))
        #expect(try decodedExtended(header) == "quote_name Überprüfung 東京.kmz")
        let traversal = #"{"name":"a/../../etc/passwd","placemarks":[],"source":{"data":"\#(kml)","edits":[]}}"#
        let t = api.handle(HTTPRequest(method: "POST", path: "/api/kml", body: Data(traversal.utf8)))
        #expect(t.header("Content-Disposition")?.contains("a/../../etc/passwd") == false)
        #expect(try plain(try #require(t.header("Content-Disposition"))) == "a_.._.._etc_passwd.kmz")
    }
}
