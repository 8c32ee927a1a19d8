/// Hexadecimal digits in ASCII text (WKB hex, KML colours, percent-encoding in URLs and connection strings).
public enum HexDigit {
    /// The value (0–15) of an ASCII hexadecimal digit, in either case.
    /// - Parameter byte: One byte of text.
    /// - Returns: The digit's value, or `nil` for any other byte.
    @inlinable public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
