/// The length rule of every message Meridian shows (the command line's errors and warnings, the viewer's error
/// responses): a message may echo input — a spatial reference's definition or name, a layer name, a value — and no
/// input may make it kilobytes long. Each line keeps at most ``maximumLineLength`` characters: a longer one keeps its
/// first ``keptHead`` and last ``keptTail`` characters (the source and what went wrong are at the ends) with the number
/// of characters left out between them.
public enum MessageText {
    /// The most characters a line of a message keeps.
    public static let maximumLineLength = 1_000
    /// The characters kept from the start of a longer line.
    public static let keptHead = 600
    /// The characters kept from the end of a longer line.
    public static let keptTail = 300

    /// `text` with every line longer than ``maximumLineLength`` characters cut in the middle:
    /// `first 600 characters…(N characters elided)…last 300 characters`; shorter lines unchanged. Idempotent.
    /// - Parameter text: A message, of one line or several (`\n`).
    /// - Returns: The bounded message.
    public static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumLineLength else { return text }  // at least one byte a character
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let count = line.count
            guard count > maximumLineLength else { return String(line) }
            return line.prefix(keptHead) + "…(\(count - keptHead - keptTail) characters elided)…" + line.suffix(keptTail)
        }.joined(separator: "\n")
    }

    /// Items joined as a sentence lists them: "a", "a or b", "a, b or c" (no serial comma).
    /// - Parameters:
    ///   - items: The items, in order.
    ///   - conjunction: The word before the last item, e.g. "or" or "and".
    /// - Returns: The list; empty for no items.
    public static func list(_ items: [String], conjunction: String) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
    }
}
