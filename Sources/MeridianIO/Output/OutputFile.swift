import Foundation
import Meridian

/// Where a command's result goes, a file (written atomically) or standard output, and in which format.
public struct OutputFile: Sendable {
    /// The path, or nil for standard output.
    public let path: String?
    /// The format: the one the path's name says, or the command's default for standard output.
    public let format: OutputFormat
    /// `--output-layer` (or `--layer` after `-o`): the layer or table of a feature table output.
    public var layer: String?

    /// An output whose format is known.
    public init(path: String?, format: OutputFormat) {
        self.path = path
        self.format = format
    }

    /// The output `-o` names for a command: standard output for `-` or nil, else a file whose name must say a
    /// format the command writes.
    /// - Parameters:
    ///   - text: `-o`'s value.
    ///   - use: Where it is written (which formats are accepted).
    ///   - standardOutput: The format written to standard output; nil when the command needs a file.
    /// - Throws: `CommandError.usage` naming the path and the formats accepted when its name says none of them.
    public init(_ text: String?, use: OutputFormat.Use, standardOutput: OutputFormat?) throws(CommandError) {
        let accepted = OutputFormat.accepted(by: use)
        let list = OutputFormat.extensionList(accepted)
        guard let text, text != "-" else {
            guard let standardOutput else {
                throw .usage("\(use.title) writes a file, not standard output: name one ending in \(list)")
            }
            self.init(path: nil, format: standardOutput)
            return
        }
        guard let format = OutputFormat(path: text) else {
            if let ext = OutputFormat.fileExtension(text) {
                throw .usage("unknown output format '.\(ext)' of '\(text)' (use \(list))")
            }
            throw .usage("cannot tell the output format of '\(text)' from its name: end it in \(list)")
        }
        guard accepted.contains(format) else {
            let shown = PostGISConnection(text)?.redacted ?? text  // never a password in a message
            throw .usage("\(use.title) does not write \(format.name) ('\(shown)'); use \(list)")
        }
        self.init(path: text, format: format)
    }

    /// Streams the result: `body` writes into a buffer that goes out in 1 MiB chunks (whenever a writer calls
    /// `flushIfFull()`), atomically to the file (a temporary file renamed at the end; a failure leaves nothing), or
    /// to stdout as it is produced.
    /// With `progress`, a "writing" phase counts the bytes written.
    public func stream(io: CommandIO, progress: ProgressLine? = nil, _ body: (inout ByteBuffer) throws(CommandError) -> Void)
        throws(CommandError)
    {
        progress?.begin("writing", unit: "bytes")
        guard let path else {
            var written = 0
            var out = ByteBuffer(chunkSize: Self.chunkSize) {
                io.output(Data($0))
                written += $0.count
                progress?.update(written)
            }
            try body(&out)
            do { try out.flush() } catch { throw .failure("cannot write to standard output: \(error)") }
            return
        }
        do {
            try AtomicFile.stream(to: URL(fileURLWithPath: path), chunkSize: Self.chunkSize,
                                  written: { progress?.update($0) }) { out in try body(&out) }
        } catch let error as CommandError {
            throw error
        } catch let error as FileWriteError {
            throw .failure(error.description)
        } catch {
            throw .failure("cannot write \(path): \(AtomicFile.reason(for: error))")
        }
    }

    /// Bytes per write when streaming.
    public static let chunkSize = 1 << 20
}

/// Encodings shared by the commands that write geometries, streamed into the output's buffer.
public enum FeatureEncoding {
    /// Features projected to WGS84: one PROJ call per source spatial reference (usually one in all).
    public static func wgs84(_ features: ArraySlice<Feature>) throws(CommandError) -> [Feature] {
        var projected = Array(features)
        let indices = projected.indices.filter { projected[$0].geometry.map { $0.spatialReference != .wgs84 } ?? false }
        for group in Dictionary(grouping: indices, by: { projected[$0].geometry!.spatialReference }).values {
            let lonLat = try engine { () throws(EngineError) in
                try GeometryEngine.project(group.map { projected[$0].geometry! }, into: .wgs84)
            }
            for (i, g) in zip(group, lonLat) { projected[i].geometry = g }
        }
        return projected
    }

    /// One WKT geometry per line, in the geometries' own spatial reference.
    public static func writeWKT(_ geometries: [Geometry], to out: inout ByteBuffer) {
        for g in geometries {
            WKT.write(g, to: &out)
            out.append(UInt8(ascii: "\n"))
            out.flushIfFull()
        }
    }

    /// Features projected (and written) per batch: bounds the projected copies held at once.
    public static let batchSize = 4096
}
