import MeridianCore

/// A color with alpha, converting exactly between RGBA and KML's `aabbggrr` hexadecimal notation.
///
/// KML writes alpha first and then the channels in reverse: opaque red is `ff0000ff`, not `ffff0000`.
/// `KMLColor(red: 255, green: 0, blue: 0).kmlString == "ff0000ff"`.
public struct KMLColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0…255.
    public var red: UInt8
    /// Green, 0…255.
    public var green: UInt8
    /// Blue, 0…255.
    public var blue: UInt8
    /// Alpha (opacity), 0 transparent … 255 opaque.
    public var alpha: UInt8

    /// Creates a color from 8-bit channels.
    /// - Parameters:
    ///   - red: Red, 0…255.
    ///   - green: Green, 0…255.
    ///   - blue: Blue, 0…255.
    ///   - alpha: Opacity, 0…255 (default opaque).
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Creates a color from a hex RGB color and an opacity fraction (as the simplestyle `fill` + `fill-opacity`).
    /// - Parameters:
    ///   - red: Red, 0…255.
    ///   - green: Green, 0…255.
    ///   - blue: Blue, 0…255.
    ///   - opacity: 0…1, clamped; rounded to the nearest 1/255.
    public init(red: UInt8, green: UInt8, blue: UInt8, opacity: Double) {
        let o = opacity.isFinite ? Swift.min(Swift.max(opacity, 0), 1) : 1
        self.init(red: red, green: green, blue: blue, alpha: UInt8((o * 255).rounded()))
    }

    /// Parses KML's `aabbggrr` (8 hex digits, case-insensitive, an optional leading `#` tolerated). Six digits
    /// (`bbggrr`) are read as opaque, as Google Earth does.
    /// - Parameter kml: The text of a `<color>` element.
    public init?(kml: String) {
        var s = kml.trimmingXMLWhitespace()
        if s.hasPrefix("#") { s.removeFirst() }
        guard let bytes = Self.hexBytes(s), bytes.count == 4 || bytes.count == 3 else { return nil }
        if bytes.count == 4 {
            self.init(red: bytes[3], green: bytes[2], blue: bytes[1], alpha: bytes[0])
        } else {
            self.init(red: bytes[2], green: bytes[1], blue: bytes[0], alpha: 255)
        }
    }

    /// Parses CSS-style `#RRGGBB` or `#RRGGBBAA` (also `#RGB`; the `#` is optional).
    /// - Parameter hex: The color text.
    public init?(hex: String) {
        var s = hex.trimmingXMLWhitespace()
        if s.hasPrefix("#") { s.removeFirst() }
        if s.count == 3 { s = s.map { "\($0)\($0)" }.joined() }
        guard let bytes = Self.hexBytes(s), bytes.count == 3 || bytes.count == 4 else { return nil }
        self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes.count == 4 ? bytes[3] : 255)
    }

    /// KML's `aabbggrr`, lowercase.
    public var kmlString: String { Self.hex([alpha, blue, green, red]) }
    /// `#rrggbb`, lowercase, without alpha.
    public var hexRGB: String { "#" + Self.hex([red, green, blue]) }
    /// `#rrggbbaa`, lowercase.
    public var hexRGBA: String { "#" + Self.hex([red, green, blue, alpha]) }
    /// Opacity as a fraction, alpha / 255.
    public var opacity: Double { Double(alpha) / 255 }

    /// `#rrggbbaa`.
    public var description: String { hexRGBA }

    /// Opaque red.
    public static let red = KMLColor(red: 255, green: 0, blue: 0)
    /// Opaque green.
    public static let green = KMLColor(red: 0, green: 255, blue: 0)
    /// Opaque blue.
    public static let blue = KMLColor(red: 0, green: 0, blue: 255)
    /// Opaque yellow.
    public static let yellow = KMLColor(red: 255, green: 255, blue: 0)
    /// Opaque white (KML's default color).
    public static let white = KMLColor(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = KMLColor(red: 0, green: 0, blue: 0)

    // The rest of the "Create and save KML" sample's fourteen colors, UIKit's named colors (component fractions as
    // UIKit documents them, times 255, rounded: 0.5 → 128, 2/3 → 170, 1/3 → 85, 0.6 → 153, 0.4 → 102, 0.2 → 51).

    /// Opaque purple (0.5, 0, 0.5): `#800080`.
    public static let purple = KMLColor(red: 128, green: 0, blue: 128)
    /// Opaque orange (1, 0.5, 0): `#ff8000`.
    public static let orange = KMLColor(red: 255, green: 128, blue: 0)
    /// Opaque magenta (1, 0, 1): `#ff00ff`.
    public static let magenta = KMLColor(red: 255, green: 0, blue: 255)
    /// Opaque cyan (0, 1, 1): `#00ffff`.
    public static let cyan = KMLColor(red: 0, green: 255, blue: 255)
    /// Opaque brown (0.6, 0.4, 0.2): `#996633`.
    public static let brown = KMLColor(red: 153, green: 102, blue: 51)
    /// Opaque light gray (white 2/3): `#aaaaaa`.
    public static let lightGray = KMLColor(red: 170, green: 170, blue: 170)
    /// Opaque gray (white 1/2): `#808080`.
    public static let gray = KMLColor(red: 128, green: 128, blue: 128)
    /// Opaque dark gray (white 1/3): `#555555`.
    public static let darkGray = KMLColor(red: 85, green: 85, blue: 85)

    private static func hexBytes(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0, !u.isEmpty else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < u.count {
            guard let hi = HexDigit.value(u[i]), let lo = HexDigit.value(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        for b in bytes {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 15)])
        }
        return s
    }
}
