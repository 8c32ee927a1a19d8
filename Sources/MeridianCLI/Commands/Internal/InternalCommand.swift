import Foundation
import Meridian
import MeridianIO

/// `meridian internal JOB.json`: the steps `meridian-dask` (python/) runs on its workers. Internal: not listed by
/// `meridian --help`, its job files and binary records (`BinaryRecords`) may change with any release, and only
/// `meridian-dask` of the same clone should call it.
///
/// A job file is a JSON object with "job" (the step) and "buffer" (the `meridian buffer` arguments of the run: the
/// steps parse them with `BufferCommand`'s own code, so options, checks and messages are the command's). The result
/// is one line of JSON on standard output; a failure is also reported there, as `{"error": MESSAGE, "status": 1 or
/// 2, "phase": "options" | "read" | "check"}` (then on standard error as usual, with the exit status), so that the
/// caller can report the error the whole input would have met first. Steps:
/// - `plan`: check the options; result: what the run does (`InternalCommand.planResult`);
/// - `prepare`: read one chunk (`data`, `origin`), check it and write a union's input (`out`: circles, or
///   geometries with their distances and labels);
/// - `buffer`: buffer one chunk without union into the file `-o` names; result: the estimated vertex count;
/// - `vertices`: refuse a vertex count above `--max-vertices`, with the command's message;
/// - `tile`, `format`, `group`: a union's cells, parts and clusters (`InternalCommand+Union.swift`).
public struct InternalCommand: Command {
    /// The subcommand name.
    public static let name = "internal"
    /// Not shown by `meridian --help` (`MeridianCommandLine.hiddenCommands`).
    public static let summary = "(internal) a step of meridian-dask"
    /// What `--help` says.
    public static let discussion = """
        Internal: runs one step of meridian-dask (a buffer or union of a large input on a Dask cluster, see
        docs/cluster.md) described by a JSON job file, and prints the step's result as one line of JSON. Not meant
        to be called by hand: job files and results may change with any release.
        """
    /// None: not for people.
    public static let examples: [String] = []

    @Argument("JOB", as: .path("JOB"), help: "the job file (JSON)")
    var path: String

    /// A command with every option at its default.
    public init() {}

    /// No work bound in a step: the coordinator checks the run's `--max-vertices` against the sum of its steps'
    /// estimates (`vertices`), which one step's share of the input cannot judge.
    public var maximumVertices: Int { .max }

    /// Runs the job file's step.
    /// - Throws: `CommandError` from the step (also reported on standard output as JSON).
    public func run(io: CommandIO) throws(CommandError) {
        let job = try Job(io.read(path), name: path)
        var state = State()
        do {
            let result = try run(job, state: &state)
            io.print(String(decoding: JSONValue.object(result).encoded(), as: UTF8.self))
        } catch {
            var report: [String: JSONValue] = ["error": .string(error.description),
                                               "status": .number(Double(error.exitStatus)), "phase": .string(state.phase)]
            if let features = state.features { report["features"] = .number(Double(features)) }
            io.print(String(decoding: JSONValue.object(report).encoded(), as: UTF8.self))
            throw error
        }
    }

    /// How far a job came, for its failure report: the phase ("options", "read", "check") and, once the input is
    /// read, its feature count.
    struct State {
        var phase = "options"
        var features: Int?
    }

    private func run(_ job: Job, state: inout State) throws(CommandError) -> [String: JSONValue] {
        switch job.step {
        case "plan": return try Self.planResult(job)
        case "prepare": return try Self.prepare(job, state: &state)
        case "buffer": return try Self.bufferChunk(job, state: &state)
        case "vertices": return try Self.checkVertices(job)
        case "tile": return try Self.tile(job)
        case "format": return try Self.format(job)
        case "group": return try Self.group(job)
        default: throw .usage("unknown job '\(job.step)'")
        }
    }

    /// A job file, read.
    struct Job {
        /// The step.
        let step: String
        /// The `meridian buffer` arguments.
        let buffer: [String]
        /// The whole JSON object.
        let value: JSONValue
        /// The job file's name, for messages.
        let name: String

        init(_ data: Data, name: String) throws(CommandError) {
            do { value = try JSONValue.decode(data) } catch { throw .usage("\(name): \(error.description)") }
            guard let step = value["job"]?.stringValue else { throw .usage("\(name): no \"job\"") }
            self.step = step
            buffer = value["buffer"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            self.name = name
        }

        /// Whether a union's parts are written as a GeoJSON text sequence (`"sequence": true`, for a partitioned
        /// output) rather than as a fragment of the one output file.
        var sequence: Bool { value["sequence"]?.boolValue ?? false }

        /// A string member.
        func string(_ key: String) throws(CommandError) -> String {
            guard let s = value[key]?.stringValue else { throw .usage("\(name): no \"\(key)\"") }
            return s
        }

        /// A number member (`null` for `nullValue`, e.g. an infinite bound).
        func number(_ key: String, _ index: Int? = nil, nullValue: Double? = nil) throws(CommandError) -> Double {
            let v: JSONValue? = if let index { value[key]?[index] } else { value[key] }
            if let d = v?.doubleValue { return d }
            if let nullValue, v?.isNull ?? false { return nullValue }
            throw .usage("\(name): no number \"\(key)\"")
        }

        /// The plan of the job's `meridian buffer` arguments: parsed and checked by `BufferCommand`'s own
        /// declarations; any number of inputs (positionals) are taken aside first.
        func plan() throws(CommandError) -> BufferPlan {
            let declarations = Declaration.all(in: BufferCommand()) + Declaration.all(in: GlobalOptions())
            let inputs = try CommandParser(command: BufferCommand.name, declarations: declarations).positionals(buffer)
            var rest = buffer
            for input in inputs { if let i = rest.lastIndex(of: input) { rest.remove(at: i) } }
            let (command, _) = try MeridianCommandLine.parse(BufferCommand.self, rest)
            return try BufferPlan(command, inputs: inputs)
        }

        /// Runs `meridian buffer` with the job's arguments on the job's chunk of a file (`data`: path, start, end,
        /// and whether the file's first line, a CSV header, goes first) named as `origin` says.
        func runBuffer(hooks: BufferHooks) throws(CommandError) {
            let chunk = try readChunk()
            let io = CommandIO(readInput: { chunk }, writeOutput: { _ in }, writeError: { _ in })
            io.quiet = true
            io.inputOrigin = InputOrigin(
                name: value["origin"]?["name"]?.stringValue ?? (value["data"]?["path"]?.stringValue ?? "stdin"),
                lineOffset: value["origin"]?["lineOffset"]?.intValue ?? 0,
                featureOffset: value["origin"]?["featureOffset"]?.intValue ?? 0,
                lineNumbers: value["origin"]?["lineNumbers"]?.boolValue ?? true)
            var (command, _) = try MeridianCommandLine.parse(BufferCommand.self, buffer)
            command.hooks = hooks
            try command.run(io: io)
        }

        /// The bytes of the job's chunk.
        private func readChunk() throws(CommandError) -> Data {
            guard let path = value["data"]?["path"]?.stringValue,
                  let start = value["data"]?["start"]?.intValue, let end = value["data"]?["end"]?.intValue,
                  start >= 0, end >= start
            else { throw .usage("\(name): \"data\" needs path, start and end") }
            guard let file = FileHandle(forReadingAtPath: path) else { throw .failure("cannot read \(path)") }
            defer { try? file.close() }
            do {
                var chunk = Data()
                if value["data"]?["header"]?.boolValue ?? false {
                    let head = try file.read(upToCount: 1 << 20) ?? Data()
                    guard let newline = head.firstIndex(of: 0x0A) else { throw CommandError.failure("\(path): no header line") }
                    chunk = head[...newline]
                }
                try file.seek(toOffset: UInt64(start))
                chunk += try file.read(upToCount: end - start) ?? Data()
                return chunk
            } catch let error as CommandError {
                throw error
            } catch {
                throw .failure("cannot read \(path): \(AtomicFile.reason(for: error))")
            }
        }
    }

    /// `plan`: what the run does, for `meridian-dask` to choose its way: `geodesic`, `union`, the output `format`
    /// (the extension, "" for standard output), `maxVertices`, the `inputs` named (any number), and for a planar
    /// union `marginPerRadius` (`GeometryEngine.unionTileMarginPerRadius`).
    static func planResult(_ job: Job) throws(CommandError) -> [String: JSONValue] {
        let plan = try job.plan()
        let format = plan.output.path == nil ? "" : plan.output.format.extensions[0]
        var result: [String: JSONValue] = [
            "geodesic": .bool(plan.geodesic), "union": .bool(plan.union), "format": .string(format),
            "maxVertices": .number(Double(plan.maxVertices)), "inputs": .array(plan.inputs.map { .string($0) }),
        ]
        if !plan.geodesic {
            result["marginPerRadius"] = .number(GeometryEngine.unionTileMarginPerRadius(parameters: plan.parameters))
        }
        return result
    }

    /// `prepare`: reads and checks a chunk as `meridian buffer --union` does, and writes its checked input to
    /// `out`: circles (x, y, r in the planar spatial reference) or geometries (WKB in their spatial reference, the
    /// distance, the label). Result: `kind` ("circles" or "geometries"), `features`, `items`, `srs` (the
    /// geometries' spatial reference) and whether it is `geographic`.
    static func prepare(_ job: Job, state: inout State) throws(CommandError) -> [String: JSONValue] {
        let out = try job.string("out")
        var result: [String: JSONValue] = [:]
        var reached = State(phase: "read")
        state.phase = "read"
        let hooks = BufferHooks(union: { (input: BufferUnionInput) throws(CommandError) in
            var data = Data()
            switch input {
            case .circles(let centres, let radii, let sr, let features):
                var xyr: [Double] = []
                xyr.reserveCapacity(3 * centres.count)
                for (i, c) in centres.enumerated() { xyr += [c.x, c.y, radii.count == 1 ? radii[0] : radii[i]] }
                BinaryRecords.append(doubles: xyr, to: &data)
                result = ["kind": "circles", "features": .number(Double(features)),
                          "items": .number(Double(centres.count)), "srs": .string(sr.definition),
                          "geographic": .bool(sr.isGeographic)]
            case .geometries(let geometries, let distances, let labels):
                for (i, g) in geometries.enumerated() {
                    let wkb = WKB.encode(g)
                    BinaryRecords.append(wkb.count, to: &data)
                    data += wkb
                    BinaryRecords.append(doubles: [distances.count == 1 ? distances[0] : distances[i]], to: &data)
                    let label = Data(labels[i].utf8)
                    BinaryRecords.append(label.count, to: &data)
                    data += label
                }
                let sr = geometries.first?.spatialReference ?? .wgs84
                result = ["kind": "geometries", "features": .number(Double(labels.count)),
                          "items": .number(Double(geometries.count)), "srs": .string(sr.definition),
                          "geographic": .bool(sr.isGeographic)]
            }
            try write(data, to: out)
        }, read: { reached = State(phase: "check", features: $0) })
        do { try job.runBuffer(hooks: hooks) } catch {
            state = reached
            throw error
        }
        return result
    }

    /// `buffer`: buffers a chunk without union into the `-o` of its arguments. Result: `vertices`, the estimate
    /// `--max-vertices` limits (checked by the caller on the sum, with `vertices`), and `features`.
    static func bufferChunk(_ job: Job, state: inout State) throws(CommandError) -> [String: JSONValue] {
        var vertices = 0, features = 0
        state.phase = "read"
        try job.runBuffer(hooks: BufferHooks(vertices: { vertices = $0; features = $1 }))
        return ["vertices": .number(Double(vertices)), "features": .number(Double(features))]
    }

    /// `vertices`: fails with the command's message when `vertices` (for `features` features) exceeds the run's
    /// `--max-vertices`.
    static func checkVertices(_ job: Job) throws(CommandError) -> [String: JSONValue] {
        let plan = try job.plan()
        let vertices = Int(try job.number("vertices")), features = Int(try job.number("features"))
        if vertices > plan.maxVertices {
            throw .failure(vertexLimitMessage(vertices: vertices, features: features,
                                              segments: plan.parameters.segmentsPerQuarterCircle,
                                              limit: plan.maxVertices))
        }
        return [:]
    }

    /// Writes bytes to a file (atomically).
    static func write(_ data: Data, to path: String) throws(CommandError) {
        try OutputFile(path: path, format: .text).stream(io: .discarding) { out throws(CommandError) in
            data.withUnsafeBytes { out.append($0) }
        }
    }
}

/// What `meridian buffer` does with its arguments, from its parsed command (`InternalCommand.Job.plan()`).
struct BufferPlan {
    /// `--geodesic`.
    let geodesic: Bool
    /// `--union`.
    let union: Bool
    /// `-o`: the output and its format.
    let output: OutputFile
    /// The planar buffer's spatial reference (`--srs`); nil for geodesic buffers.
    let spatialReference: SpatialReference?
    /// Chords per quarter circle (planar).
    let parameters: BufferParameters
    /// `--max-deviation` in meters (geodesic); nil for the default.
    let maxDeviation: Double?
    /// `--max-vertices` (planar, without `--union`).
    let maxVertices: Int
    /// The inputs named.
    let inputs: [String]

    /// The plan of a parsed and validated command.
    init(_ command: BufferCommand, inputs: [String]) throws(CommandError) {
        geodesic = command.kind == .geodesic
        union = command.union
        output = try command.output.file(standardOutput: .geoJSON)
        spatialReference = geodesic ? nil : command.srs
        var parameters = BufferParameters.default
        parameters.segmentsPerQuarterCircle = command.segments
        self.parameters = parameters
        maxDeviation = command.maxDeviation?.value(in: .meters)
        maxVertices = command.maximumVertices
        self.inputs = inputs
    }
}

extension CommandIO {
    /// Streams that read nothing and drop everything written (for runs whose results go to files).
    static var discarding: CommandIO {
        CommandIO(readInput: { Data() }, writeOutput: { _ in }, writeError: { _ in })
    }
}
