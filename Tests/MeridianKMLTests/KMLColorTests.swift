import Testing
@testable import MeridianKML

@Suite struct KMLColorTests {
    /// KML's byte order is aabbggrr: alpha first, then blue, green, red. Writing ARGB or RGBA is the classic bug.
    @Test func byteOrderIsAlphaBlueGreenRed() {
        #expect(KMLColor(red: 255, green: 0, blue: 0).kmlString == "ff0000ff")
        #expect(KMLColor(red: 0, green: 0, blue: 255).kmlString == "ffff0000")
        #expect(KMLColor(red: 0x12, green: 0x34, blue: 0x56, alpha: 0x78).kmlString == "78563412")
        let c = KMLColor(kml: "78563412")!
        #expect((c.red, c.green, c.blue, c.alpha) == (0x12, 0x34, 0x56, 0x78))
        #expect(KMLColor(kml: "7F00FF00") == KMLColor(red: 0, green: 255, blue: 0, alpha: 127))
    }

    @Test func everyChannelValueRoundTrips() {
        for v in 0...255 {
            let b = UInt8(v)
            for c in [KMLColor(red: b, green: 0, blue: 0, alpha: 255 - b), KMLColor(red: 1, green: b, blue: 2, alpha: 3),
                      KMLColor(red: 9, green: 8, blue: b, alpha: b)] {
                #expect(KMLColor(kml: c.kmlString) == c)
                #expect(KMLColor(hex: c.hexRGBA) == c)
            }
        }
    }

    @Test func cssHexAndOpacity() {
        #expect(KMLColor(hex: "#FFFF00") == .yellow)
        #expect(KMLColor(hex: "#ffff0099")?.kmlString == "9900ffff")
        #expect(KMLColor(hex: "#f00") == .red)
        #expect(KMLColor(red: 255, green: 255, blue: 0, opacity: 0.6).alpha == 153)
        #expect(KMLColor(red: 1, green: 2, blue: 3, opacity: 7).alpha == 255)
        for bad in ["", "#12345", "gg0000", "#1234567890", "ff00ff0"] {
            #expect(KMLColor(hex: bad) == nil, "\(bad)")
        }
        #expect(KMLColor(kml: "zz0000ff") == nil)
        #expect(KMLColor(kml: "0000ff") == .red)  // six digits: bbggrr, opaque
    }
}
