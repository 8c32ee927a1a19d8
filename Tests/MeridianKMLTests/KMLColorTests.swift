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

    /// The "Create and save KML" sample's fourteen colors are UIKit's named colors. UIKit documents their
    /// components as fractions (purple 0.5, 0, 0.5; orange 1, 0.5, 0; brown 0.6, 0.4, 0.2; light gray, gray and
    /// dark gray white 2/3, 1/2, 1/3, …); each channel is the fraction × 255, rounded half up as UIKit's 8-bit
    /// conversion does (0.5 → 128).
    @Test func theSamplePaletteIsNamed() {
        let uikit: [(KMLColor, Double, Double, Double)] = [
            (.red, 1, 0, 0), (.yellow, 1, 1, 0), (.white, 1, 1, 1), (.purple, 0.5, 0, 0.5), (.orange, 1, 0.5, 0),
            (.magenta, 1, 0, 1), (.lightGray, 2.0 / 3, 2.0 / 3, 2.0 / 3), (.gray, 0.5, 0.5, 0.5),
            (.darkGray, 1.0 / 3, 1.0 / 3, 1.0 / 3), (.green, 0, 1, 0), (.cyan, 0, 1, 1), (.brown, 0.6, 0.4, 0.2),
            (.blue, 0, 0, 1), (.black, 0, 0, 0),
        ]
        func byte(_ f: Double) -> UInt8 { UInt8((f * 255).rounded(.toNearestOrAwayFromZero)) }
        for (color, r, g, b) in uikit {
            #expect(color == KMLColor(red: byte(r), green: byte(g), blue: byte(b)), "\(color) vs (\(r), \(g), \(b))")
        }
        #expect(Set(uikit.map(\.0)).count == 14)
        #expect(KMLColor.brown.kmlString == "ff336699")  // aabbggrr
    }
}
