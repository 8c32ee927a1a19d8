import Foundation
import Meridian

extension ViewerAPI {
    /// Decodes a JSON body, turning every failure into a 400 with a readable message.
    func decode<T: Decodable>(_ type: T.Type, from r: HTTPRequest) throws(APIError) -> T {
        guard !r.body.isEmpty else { throw .badRequest("the request body is empty: send a JSON object") }
        do {
            return try JSONDecoder().decode(T.self, from: r.body)
        } catch let error as DecodingError {
            throw .badRequest(Self.describe(error))
        } catch {
            throw .badRequest("malformed JSON")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ extra: CodingKey? = nil) -> String {
            let keys = context.codingPath + (extra.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        switch error {
        case .dataCorrupted(let c) where c.codingPath.isEmpty: return "malformed JSON"
        case .dataCorrupted(let c): return "invalid value at '\(path(c))'"
        case .keyNotFound(let key, let c): return "missing field '\(path(c, key))'"
        case .typeMismatch(let type, let c): return "field '\(path(c))' must be \(Self.kind(type))"
        case .valueNotFound(let type, let c): return "field '\(path(c))' must be \(Self.kind(type)), not null"
        @unknown default: return "malformed JSON"
        }
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: "a number"
        case is Bool.Type: "true or false"
        case is String.Type: "a string"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}
