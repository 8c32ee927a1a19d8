import Foundation
import Meridian

/// An error the JSON API reports to the client as `{"error": message}` with a 4xx or 5xx status.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, e.g. 400.
    public let status: Int
    /// The message shown to the client.
    public let message: String

    /// Creates an API error.
    /// - Parameters:
    ///   - status: The HTTP status, 400…599.
    ///   - message: What went wrong, in one sentence.
    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    /// 400: the body is not the JSON the endpoint expects.
    public static func badRequest(_ message: String) -> APIError { APIError(400, message) }
    /// 404: no such resource.
    public static func notFound(_ message: String) -> APIError { APIError(404, message) }
    /// 413: more data than the API accepts (too many points or vertices).
    public static func tooLarge(_ message: String) -> APIError { APIError(413, message) }
    /// 422: well-formed but out of range (a radius of 500 miles, a point outside the area of use).
    public static func unprocessable(_ message: String) -> APIError { APIError(422, message) }

    /// `status: message`.
    public var description: String { "\(status): \(message)" }

    /// The error as a JSON response.
    public var response: HTTPResponse { .jsonError(status, message) }
}

/// The body of every error answer: `{"error": "…"}`.
struct ErrorResponse: Encodable {
    /// What went wrong, in one sentence.
    let error: String
}

extension HTTPResponse {
    /// Headers sent with every response.
    static let commonHeaders = ["X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"]

    /// A JSON body from an `Encodable` value, written by the viewer's one JSON writer (`ViewerJSON`: keys in the
    /// order the value encodes them, numbers as the shortest decimal that reads back as the same double); a 500 if
    /// it cannot be written (a number that is not finite).
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - status: The HTTP status, 100…599 (default 200).
    public static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        do {
            return json(data: try ViewerJSON.encode(value), status: status)
        } catch {
            return .jsonError(500, "could not encode the response: \(error)")
        }
    }

    /// A response with an already-encoded JSON body.
    /// - Parameters:
    ///   - data: UTF-8 JSON.
    ///   - status: The HTTP status, 100…599 (default 200).
    public static func json(data: Data, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status,
                     headers: commonHeaders.merging(["Content-Type": "application/json; charset=utf-8"]) { $1 },
                     body: data)
    }

    /// `{"error": message}` with a status; the message bounded as every message is (`MessageText.bounded`).
    /// - Parameters:
    ///   - status: A 4xx or 5xx status.
    ///   - message: The error's text.
    public static func jsonError(_ status: Int, _ message: String) -> HTTPResponse {
        let data = (try? ViewerJSON.encode(ErrorResponse(error: MessageText.bounded(message))))
            ?? Data(#"{"error":"error"}"#.utf8)
        return json(data: data, status: status)
    }

    /// A file download, named per RFC 6266 (see ``DownloadName``).
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - contentType: Its media type.
    ///   - filename: The name the browser should save it under (any characters: it is sanitised).
    public static func attachment(_ data: Data, contentType: String, filename: String) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: commonHeaders.merging([
                "Content-Type": contentType, "Content-Disposition": DownloadName(filename).contentDisposition,
            ]) { $1 },
            body: data)
    }
}
