import MeridianKML

/// The styles page 2 offers, as in the "Create and save KML" sample: seven point icons and fourteen colors.
///
/// The icons are the project's own PNGs (drawn by `scripts/make-icons.py`), served from `/icons/` and packed into
/// saved KMZ files under `files/`.
public enum KMLPalette {
    /// A point icon.
    public struct Icon: Sendable, Hashable, Codable {
        /// A stable identifier used in API requests, e.g. "star".
        public let id: String
        /// The title shown in the menu, e.g. "Star".
        public let title: String
        /// The PNG's file name under `/icons/` and under `files/` in a KMZ.
        public let file: String
    }

    /// A line or fill color.
    public struct Color: Sendable, Hashable, Codable {
        /// The name shown in the menu, e.g. "Light gray".
        public let name: String
        /// `#rrggbb`.
        public let hex: String
    }

    /// The sample's seven icon choices, in its order.
    public static let icons: [Icon] = [
        Icon(id: "none", title: "No style", file: "no-style.png"),
        Icon(id: "star", title: "Star", file: "star.png"),
        Icon(id: "diamond", title: "Diamond", file: "diamond.png"),
        Icon(id: "circle", title: "Circle", file: "circle.png"),
        Icon(id: "square", title: "Square", file: "square.png"),
        Icon(id: "round-pin", title: "Round pin", file: "round-pin.png"),
        Icon(id: "square-pin", title: "Square pin", file: "square-pin.png"),
    ]

    /// The sample's fourteen colors (UIKit's named colors, as `KMLColor`'s named colors), in its order.
    public static let colors: [Color] = [
        Color(name: "Red", hex: KMLColor.red.hexRGB),
        Color(name: "Yellow", hex: KMLColor.yellow.hexRGB),
        Color(name: "White", hex: KMLColor.white.hexRGB),
        Color(name: "Purple", hex: KMLColor.purple.hexRGB),
        Color(name: "Orange", hex: KMLColor.orange.hexRGB),
        Color(name: "Magenta", hex: KMLColor.magenta.hexRGB),
        Color(name: "Light gray", hex: KMLColor.lightGray.hexRGB),
        Color(name: "Gray", hex: KMLColor.gray.hexRGB),
        Color(name: "Dark gray", hex: KMLColor.darkGray.hexRGB),
        Color(name: "Green", hex: KMLColor.green.hexRGB),
        Color(name: "Cyan", hex: KMLColor.cyan.hexRGB),
        Color(name: "Brown", hex: KMLColor.brown.hexRGB),
        Color(name: "Blue", hex: KMLColor.blue.hexRGB),
        Color(name: "Black", hex: KMLColor.black.hexRGB),
    ]

    /// The icon with an identifier.
    /// - Parameter id: e.g. "star".
    public static func icon(id: String) -> Icon? { icons.first { $0.id == id } }

    /// Parses `#rrggbb` (or `rrggbb`) into red, green and blue bytes.
    /// - Parameter hex: The color text.
    public static func rgb(_ hex: String) -> (red: UInt8, green: UInt8, blue: UInt8)? {
        let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard digits.count == 6, digits.allSatisfy({ $0.isHexDigit }), let v = UInt32(digits, radix: 16) else { return nil }
        return (UInt8(v >> 16), UInt8((v >> 8) & 0xff), UInt8(v & 0xff))
    }
}
