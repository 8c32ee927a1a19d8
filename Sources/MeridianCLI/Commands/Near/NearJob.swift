import Foundation
import Meridian
import MeridianIO

/// One run of `meridian near`: RIGHT read whole and indexed as read on another thread (`EarlyIndex`) while LEFT's
/// first batches are read; RIGHT checked, and indexed again if LEFT's first batch settles another spatial reference
/// to measure in; then LEFT read, checked, searched and written a batch at a time (`NearOutput`).
struct NearJob {
    /// The command's options.
    let command: NearCommand
    /// The command's streams.
    let io: CommandIO
    /// Where reading shows how far it has come.
    let progress: ProgressLine?

    /// RIGHT, read and checked: its features and how messages name them.
    private struct Right {
        let input: FeatureInput
        /// Each feature's geometry, in the spatial reference measured in (set with the index).
        var measured: [Geometry] = []
    }

    /// What the first LEFT batch settles: the spatial reference measured in, RIGHT's index and the output's columns.
    struct Search {
        let spatialReference: SpatialReference
        let index: Index
        let columns: NearColumns
        /// The distance unit: the spatial reference's (planar) or meters (geodesic).
        let unit: LinearUnit
        /// The writer of a CSV of pairs without a row per pair (nil for the other outputs, or when RIGHT's features
        /// have properties outside its columns).
        let csvRows: NearCSVRows?
    }

    /// RIGHT's index, planar or geodesic.
    enum Index {
        case planar(SpatialIndex)
        case geodesic(GeodeticSpatialIndex)

        /// A planar or geodesic index of `geometries`.
        init(_ geometries: [Geometry], kind: NearCommand.Kind) throws(EngineError) {
            self = kind == .planar
                ? .planar(try SpatialIndex(geometries)) : .geodesic(try GeodeticSpatialIndex(geometries))
        }
    }

    /// RIGHT's index made on another thread from the moment RIGHT is read, while LEFT is opened and its first batch
    /// read, in the spatial reference RIGHT is in: what `prepare` takes when that is the one measured in (else it
    /// makes its own from the projected geometries). The same index as one made on the spot, errors included.
    struct EarlyIndex {
        private let task: BackgroundTask<EngineError>
        private let box: Box

        /// Where the task leaves the index (written before it ends, read after `task.wait()`).
        private final class Box: @unchecked Sendable {
            var value: Index?
        }

        /// Starts indexing `geometries` (at once, on this thread, with one thread).
        init(_ geometries: [Geometry], kind: NearCommand.Kind) {
            let box = Box()
            self.box = box
            task = BackgroundTask(inline: Parallelism.threadCount < 2) { () throws(EngineError) in
                box.value = try Index(geometries, kind: kind)
            }
        }

        /// The index, once made.
        /// - Throws: What making it threw.
        func index() throws(EngineError) -> Index {
            try task.wait()
            return box.value!
        }

        /// Waits for the task (every task is waited for), whether or not its index was taken.
        func finish() { _ = try? task.wait() }
    }

    /// LEFT batches searched together on other threads (`start`) while the next ones are read.
    static let groupSize = 4

    /// Runs the search and writes the output. LEFT is read a batch at a time; every `groupSize` batches are searched
    /// on other threads (`start`), one group at a time, while the next are read, and written once two more groups
    /// are read: at most three groups are held, and the output is the same as one thread's (errors included: what
    /// the first batch settles is reported first, a batch's failure before a later batch's, a reading failure after
    /// those of the batches read before it).
    func run(into file: OutputFile) throws(CommandError) {
        let right = Right(input: try readRight())
        let rightGeometries = try Self.geometries(of: right.input)
        let early = command.srs == nil || command.srs == right.input.spatialReference
            ? EarlyIndex(rightGeometries, kind: command.kind) : nil
        defer { early?.finish() }
        var groups = Groups(job: self, file: file, right: right, rightGeometries: rightGeometries, early: early)
        try NearOutput(file: file, io: io).write { emit throws(CommandError) in
            do throws(CommandError) {
                _ = try FeatureInput.read(
                    command.left, layer: command.leftLayer, inputSpatialReference: command.inputSpatialReference,
                    defaultXYSpatialReference: command.srs, io: io,
                    csv: FeatureInput.CSVOptions(batchSize: FeatureEncoding.batchSize, featureTableColumns: true),
                    progress: progress
                ) { batch throws(CommandError) in
                    try groups.add(batch, emit: emit)
                }
                try groups.flush(emit: emit)
                try groups.collectAll(emit: emit)
            } catch {
                try groups.reportBefore(error, emit: emit)
                throw error
            }
            guard command.shape == .rightOnly, let search = groups.search else { return }
            try emit(rightOnly(groups.matched, right: groups.right, search: search))
        }
    }

    /// `run`'s state between LEFT's batches: the group being read, the groups handed to other threads, the search
    /// (settled once the first group is read) and which RIGHT features have matched.
    private struct Groups {
        let job: NearJob
        let file: OutputFile
        var right: Right
        let rightGeometries: [Geometry]
        let early: EarlyIndex?
        /// Batches searched together: `NearJob.groupSize` with more than one thread, else 1.
        let size = Parallelism.threadCount > 1 ? NearJob.groupSize : 1
        /// Whether each RIGHT feature is in a pair so far.
        private(set) var matched: [Bool]
        private(set) var search: Search?
        /// Groups handed to other threads and not yet collected, oldest first: each searched once the one before
        /// it is (`NearJob.start`), at most `ahead` of them.
        private var pending: [NearPending] = []
        /// How many groups may wait to be collected while the next is read: 2 with more than one thread (one
        /// searched, one waiting for the threads, so that a group read faster than the one before is searched
        /// gives no idle core), else 1.
        let ahead = Parallelism.threadCount > 1 ? 2 : 1
        private var group: [FeatureInput] = []
        /// Whether a failure has been reported (what `reportBefore` would report is then already out).
        private var failedBefore = false

        init(job: NearJob, file: OutputFile, right: Right, rightGeometries: [Geometry], early: EarlyIndex?) {
            self.job = job
            self.file = file
            self.right = right
            self.rightGeometries = rightGeometries
            self.early = early
            matched = [Bool](repeating: false, count: right.input.count)
        }

        /// Adds a batch read, and hands the group to another thread once it is full.
        mutating func add(_ batch: FeatureInput, emit: (NearOutput.Batch) throws(CommandError) -> Void)
            throws(CommandError)
        {
            group.append(batch)
            if group.count >= size { try flush(emit: emit) }
        }

        /// Collects the oldest group handed over when `ahead` of them wait, then hands over the group read (if any).
        mutating func flush(emit: (NearOutput.Batch) throws(CommandError) -> Void) throws(CommandError) {
            if pending.count >= ahead { try collect(emit: emit) }
            guard let search = try settled(), !group.isEmpty else { return }
            pending.append(job.start(group, search: search, right: right.input, file: file, after: pending.last))
            group = []
        }

        /// Every group handed over, in order, once searched: its matches noted, its rows written.
        mutating func collectAll(emit: (NearOutput.Batch) throws(CommandError) -> Void) throws(CommandError) {
            while !pending.isEmpty { try collect(emit: emit) }
        }

        /// The oldest group handed over, once searched: its matches noted, its rows written. On a failure, the
        /// groups after it are waited for (every task is) and dropped.
        mutating func collect(emit: (NearOutput.Batch) throws(CommandError) -> Void) throws(CommandError) {
            guard !pending.isEmpty else { return }
            let before = pending.removeFirst()
            do throws(CommandError) {
                try before.task.wait()
                for done in before.box.value ?? [] {
                    for p in done.pairs { matched[p.rightIndex] = true }
                    if let rows = done.output { try emit(rows) }
                }
            } catch {
                failedBefore = true
                for later in pending { _ = try? later.task.wait() }
                pending = []
                throw error
            }
        }

        /// A reading failure is coming: what the first batch settles, then the batches read before it, searched or
        /// not yet, report theirs first.
        mutating func reportBefore(_ error: CommandError, emit: (NearOutput.Batch) throws(CommandError) -> Void)
            throws(CommandError)
        {
            guard !failedBefore, let search = try settled() else { return }
            try collectAll(emit: emit)
            if !group.isEmpty { _ = try job.process(group, search: search, right: right.input, file: file) }
        }

        /// The search settled by LEFT's first batch: made once the first group is read (RIGHT's early index being
        /// made meanwhile), before anything is searched or a reading failure reported.
        private mutating func settled() throws(CommandError) -> Search? {
            guard search == nil, let first = group.first else { return search }
            do throws(CommandError) {
                search = try job.prepare(&right, rightGeometries, early: early, leftSide: NearColumns.Side(first),
                                         first: first, wktColumn: file.format.writesGeometryAsWKTColumn)
            } catch {
                failedBefore = true
                throw error
            }
            return search
        }
    }

    /// RIGHT, read whole (a feature table as columns); an empty RIGHT is an answer (no pairs), not a mistake.
    private func readRight() throws(CommandError) -> FeatureInput {
        try FeatureInput.read(
            command.right, layer: command.rightLayer, inputSpatialReference: command.inputSpatialReference,
            defaultXYSpatialReference: command.srs, io: io,
            csv: FeatureInput.CSVOptions(featureTableColumns: true, allowsEmpty: true), progress: progress)
    }

    /// The RIGHT features with a match, for `--right-only`.
    private func rightOnly(_ matched: [Bool], right: Right, search: Search) -> NearOutput.Batch {
        let keep = matched.indices.filter { matched[$0] }
        let input = right.input
        return NearOutput.Batch(
            rows: keep.map { Feature(geometry: right.measured[$0], properties: input.properties(at: $0), id: input.id(at: $0)) },
            wgs84: keep.map { input.feature(at: $0) }, csvText: [], columns: search.columns,
            spatialReference: search.spatialReference, geometryType: FeatureTableOutput.geometryType(of: input.geometries))
    }

    /// A batch searched and its rows made (none for `--right-only`, which writes RIGHT's features at the end).
    struct Processed {
        /// The batch's pairs (`leftIndex`: positions in the batch).
        let pairs: [NearPair]
        /// The rows to write.
        let output: NearOutput.Batch?
    }

    /// Checks and searches a group of batches and makes their rows: the work `run` hands to another thread. A
    /// failure is reported as one thread meets it, batch after batch (the group is checked and searched again so,
    /// to find it), so messages do not depend on the threads or the chunks.
    func process(_ group: [FeatureInput], search: Search, right: FeatureInput, file: OutputFile) throws(CommandError)
        -> [Processed]
    {
        do throws(CommandError) {
            var prepared: [Prepared] = []
            for batch in group {
                prepared.append(Prepared(batch: batch, chunks: try lefts(of: batch, search: search),
                                         distances: try distances(of: batch, unit: search.unit)))
            }
            let found = try searchGroup(prepared, search: search, right: right, csv: search.csvRows,
                                        threads: Parallelism.threadCount)
            var done: [Processed] = []
            for (batch, pairs) in zip(prepared, found) {
                done.append(try rows(of: batch, found: pairs, search: search, right: right, file: file))
            }
            return done
        } catch {
            for batch in group {
                let lefts = Array(try measured(batch, in: search.spatialReference).joined())
                let pairs = try self.pairs(lefts, of: batch, search: search, right: right.labels)
                guard command.shape != .rightOnly else { continue }
                _ = try rows(pairs, lefts: lefts, of: batch, search: search, right: right,
                             fixed: file.format.writesInWorkingSpatialReference)
            }
            throw error
        }
    }

    /// A searched batch's rows: CSV text already made, or features for the other outputs.
    private func rows(of prepared: Prepared, found: BatchResult, search: Search, right: FeatureInput,
                      file: OutputFile) throws(CommandError) -> Processed
    {
        guard command.shape != .rightOnly else { return Processed(pairs: found.pairs, output: nil) }
        var rows: (rows: [Feature], wgs84: [Feature]) = ([], [])
        if search.csvRows == nil {
            let lefts = prepared.chunks.flatMap { $0.geometries(in: search.spatialReference) }
            rows = try self.rows(found.pairs, lefts: lefts, of: prepared.batch, search: search, right: right,
                                 fixed: file.format.writesInWorkingSpatialReference)
        }
        let batch = prepared.batch
        return Processed(pairs: found.pairs, output: NearOutput.Batch(
            rows: rows.rows, wgs84: rows.wgs84, csvText: found.text, columns: search.columns,
            spatialReference: search.spatialReference,
            geometryType: file.format.isFeatureTable ? FeatureTableOutput.geometryType(of: batch.geometries) : nil))
    }

    // MARK: The spatial reference, the index and the columns

    /// Settles the spatial reference measured in from LEFT's first batch and RIGHT, puts RIGHT's geometries in it
    /// and indexes them (taking `early`'s index when they are in it as read), and fixes the output's columns.
    private func prepare(_ right: inout Right, _ rightGeometries: [Geometry], early: EarlyIndex?,
                         leftSide: NearColumns.Side, first batch: FeatureInput, wktColumn: Bool)
        throws(CommandError) -> Search
    {
        let sr = try spatialReference(left: batch, right: right.input)
        let unit = command.kind == .planar ? sr.unit ?? .meters : .meters
        if command.kind == .planar {
            try refuseInvalidPolygons(rightGeometries, labels: right.input.labels)
            try checkAreaOfUse(rightGeometries, labels: right.input.labels)
        }
        let asRead = right.input.spatialReference == sr || rightGeometries.isEmpty
        right.measured = asRead
            ? rightGeometries : try projectFeatures(rightGeometries, into: sr, labels: right.input.labels)
        progress?.begin("indexing \(ProgressLine.grouped(right.measured.count)) features")
        let measured = right.measured
        let index: Index
        do throws(EngineError) {
            if asRead, let early {
                index = try early.index()
            } else {
                index = try Index(measured, kind: command.kind)
            }
        } catch {
            throw .failure(describe(error, naming: { right.input.labels.label(of: $0, list: .nearFeatures) }))
        }
        let rightSide = NearColumns.Side(right.input)
        var added: [Field] = []
        switch command.shape {
        case .pairs: added = [Field(name: NearColumns.distanceColumn(unit), type: .float64), Field(name: "rank", type: .int32)]
        case .count: added = [Field(name: "near_count", type: .int32)]
        case .leftOnly, .rightOnly: break
        }
        if wktColumn { added.append(Field(name: "wkt", type: .text)) }
        let columns = try NearColumns(
            left: command.shape == .rightOnly ? nil : leftSide,
            right: command.shape == .pairs || command.shape == .rightOnly ? rightSide : nil,
            added: added)
        progress?.begin("searching")
        let csvRows = wktColumn && command.shape == .pairs
            ? NearCSVRows(columns: columns, left: leftSide, right: rightSide, input: right.input) : nil
        return Search(spatialReference: sr, index: index, columns: columns, unit: unit, csvRows: csvRows)
    }

    /// The spatial reference measured in: `--srs`; else LEFT's, which RIGHT's must be (unless RIGHT is empty), and
    /// which a planar search needs projected.
    private func spatialReference(left: FeatureInput, right: FeatureInput) throws(CommandError) -> SpatialReference {
        if let srs = command.srs { return srs }
        let sr = left.spatialReference
        if right.count > 0, right.spatialReference != sr {
            let fix = command.kind == .planar
                ? "give --srs SRS to project both into one projected spatial reference"
                : "project one into the other's first (meridian project ... --to)"
            throw .failure("LEFT \(left.labels.name) is in \(sr) but RIGHT \(right.labels.name) is in \(right.spatialReference): \(fix)")
        }
        if command.kind == .planar, !sr.isProjected || sr.unit == nil {
            throw .failure("\(left.labels.name) is in \(sr), which is \(sr.kind.rawValue), not projected: a planar near measures in a projected spatial reference's unit; give --srs SRS (e.g. a UTM zone) to project both inputs, or --geodesic to measure on the ellipsoid")
        }
        return sr
    }

    /// Refuses features outside the `--srs` horizon unless `--allow-outside-area` is given (planar, with `--srs`).
    private func checkAreaOfUse(_ geometries: [Geometry], labels: FeatureLabels) throws(CommandError) {
        guard let srs = command.srs, !command.allowOutsideArea, !geometries.isEmpty else { return }
        try refuseOutsideAreaOfUse(geometries, of: srs, label: { geometry, _ in labels[geometry] },
                                   override: "--allow-outside-area", verb: "measure")
    }

    // MARK: A batch

    /// Every feature's geometry (of the features in `range`, all by default), refusing a feature without one.
    private static func geometries(of input: FeatureInput, in range: Range<Int>? = nil) throws(CommandError)
        -> [Geometry]
    {
        let range = range ?? 0..<input.count
        var geometries: [Geometry] = []
        geometries.reserveCapacity(range.count)
        for i in range {
            guard let g = input.geometry(at: i) else { throw .failure("\(input.labels[i]) has no geometry") }
            if case .point = g {
                geometries.append(g)  // a point has its coordinate: no coordinate array to look at
                continue
            }
            guard !g.coordinates.isEmpty else { throw .failure("\(input.labels[i]) has an empty geometry") }
            geometries.append(g)
        }
        return geometries
    }

    /// A LEFT batch's chunks to search (`chunkRanges`): the coordinates of its points when the search can take them
    /// so — planar pairs within a distance written as CSV, every geometry a point with finite coordinates, in the
    /// spatial reference measured in, and no area of use to check — else its geometries, checked and measured.
    private func lefts(of batch: FeatureInput, search: Search) throws(CommandError) -> [NearLefts] {
        if let points = points(of: batch, search: search) { return points.map { .points($0) } }
        return try measured(batch, in: search.spatialReference).map { .geometries($0) }
    }

    /// The coordinates of a batch of points, a chunk at a time, when `lefts(of:search:)` can search them so.
    private func points(of batch: FeatureInput, search: Search) -> [[Coordinate]]? {
        guard command.kind == .planar, command.nearest == nil, search.csvRows != nil,
              batch.spatialReference == search.spatialReference, command.srs == nil || command.allowOutsideArea
        else { return nil }
        var chunks: [[Coordinate]] = []
        for range in Self.chunkRanges(batch.count) {
            guard let chunk = batch.pointCoordinates(in: range), chunk.allSatisfy({ $0.x.isFinite && $0.y.isFinite })
            else { return nil }
            chunks.append(chunk)
        }
        return chunks
    }

    /// A LEFT batch's geometries, checked and put in the spatial reference measured in, in the chunks the threads
    /// search (`chunkRanges`): each made from the batch, not cut from one array of them, so that no geometry is
    /// copied twice (every copy retains the spatial reference all share). Each check runs over the whole batch
    /// before the next, as on one array, so the first failure is the same.
    private func measured(_ batch: FeatureInput, in sr: SpatialReference) throws(CommandError) -> [[Geometry]] {
        let ranges = Self.chunkRanges(batch.count)
        var chunks: [[Geometry]] = []
        for range in ranges { chunks.append(try Self.geometries(of: batch, in: range)) }
        guard command.kind == .planar else { return chunks }
        for (chunk, range) in zip(chunks, ranges) { try refuseInvalidPolygons(chunk, labels: batch.labels.slice(range)) }
        for (chunk, range) in zip(chunks, ranges) { try checkAreaOfUse(chunk, labels: batch.labels.slice(range)) }
        guard batch.spatialReference != sr else { return chunks }
        // Projected as one batch (as the other commands project a batch), then cut.
        let projected = try projectFeatures(Array(chunks.joined()), into: sr, labels: batch.labels)
        return ranges.map { Array(projected[$0]) }
    }

    /// The search distances of a batch in the search's unit: one for all, one per feature, or none (`--nearest`
    /// alone).
    func distances(of batch: FeatureInput, unit: LinearUnit) throws(CommandError) -> [Double]? {
        if let fixed = command.distance.fixed { return [fixed.value(in: unit)] }
        guard let field = command.distance.field else { return nil }
        var distances: [Double] = []
        distances.reserveCapacity(batch.count)
        for i in 0..<batch.count {
            guard let d = try command.distance.fieldDistance(of: batch, at: i, in: unit) else { continue }
            guard d >= 0 else {
                throw .failure("\(batch.labels[i]): '\(field)' is negative; a search distance must be 0 or more")
            }
            distances.append(d)
        }
        return distances
    }

    /// The near table of a batch (`leftIndex`: positions in the batch; `rightIndex`: in RIGHT).
    func pairs(_ lefts: [Geometry], of batch: FeatureInput, search: Search, right: FeatureLabels)
        throws(CommandError) -> [NearPair]
    {
        let distances = try distances(of: batch, unit: search.unit)
        return try pairs(lefts, distances: distances, single: distances?.count == 1, labels: batch.labels,
                         search: search, right: right)
    }

    /// `pairs(_:distances:single:labels:search:right:)` for a chunk as searched: its points' coordinates (in `sr`,
    /// with distances) or its geometries.
    func pairs(_ lefts: NearLefts, in sr: SpatialReference, distances: [Double]?, single: Bool, labels: FeatureLabels,
               search: Search, right: FeatureLabels) throws(CommandError) -> [NearPair]
    {
        guard case .points(let points) = lefts, case .planar(let index) = search.index, let distances else {
            return try pairs(lefts.geometries(in: sr), distances: distances, single: single, labels: labels,
                             search: search, right: right)
        }
        do throws(EngineError) {
            return try GeometryEngine.nearPairs(fromPointsAt: points, in: sr, to: index, distances: distances)
        } catch {
            throw nearFailure(error, labels: labels, right: right)
        }
    }

    /// `pairs(_:of:search:right:)` with the search distances given (`distances(of:unit:)`, or a part of them for
    /// a part of the batch); `single`: whether the batch has one distance for all (the search `--nearest` then
    /// makes is decided by the batch, not by the part).
    func pairs(_ lefts: [Geometry], distances: [Double]?, single: Bool, labels: FeatureLabels, search: Search,
               right: FeatureLabels) throws(CommandError) -> [NearPair]
    {
        let k = command.nearest
        do throws(EngineError) {
            switch (search.index, distances) {
            case (.planar(let index), nil):
                return try GeometryEngine.nearest(from: lefts, to: index, count: k ?? 1)
            case (.planar(let index), let d?) where k != nil && single:
                return try GeometryEngine.nearest(from: lefts, to: index, count: k ?? 1, maxDistance: d[0])
            case (.planar(let index), let d?):
                return Self.keep(try GeometryEngine.nearPairs(from: lefts, to: index, distances: d), nearest: k)
            case (.geodesic(let index), nil):
                return try GeometryEngine.geodeticNearest(from: lefts, to: index, count: k ?? 1)
            case (.geodesic(let index), let d?) where k != nil && single:
                return try GeometryEngine.geodeticNearest(from: lefts, to: index, count: k ?? 1, maxDistance: d[0])
            case (.geodesic(let index), let d?):
                return Self.keep(try GeometryEngine.geodeticNearPairs(from: lefts, to: index, distances: d), nearest: k)
            }
        } catch {
            throw nearFailure(error, labels: labels, right: right)
        }
    }

    /// A search's failure, naming the LEFT (`labels`) or RIGHT feature it is about.
    private func nearFailure(_ error: EngineError, labels: FeatureLabels, right: FeatureLabels) -> CommandError {
        .failure(describe(error, naming: {
            labels.label(of: $0, list: .inputFeatures) ?? right.label(of: $0, list: .nearFeatures)
        }))
    }

    /// The pairs of rank `k` or better (all without `--nearest`): each LEFT feature's `k` nearest within its own
    /// distance, ties at the last place kept by RIGHT's order, as the engine's `nearest` keeps them.
    private static func keep(_ pairs: [NearPair], nearest k: Int?) -> [NearPair] {
        guard let k else { return pairs }
        return pairs.filter { $0.rank <= k }
    }

    /// The output rows of a batch: features in the spatial reference measured in when the output's columns are
    /// `fixed` (CSV, feature tables), else as read (GeoJSON, projected to WGS84 from there); the other array is
    /// empty.
    func rows(_ pairs: [NearPair], lefts: [Geometry], of batch: FeatureInput, search: Search,
                      right: FeatureInput, fixed: Bool) throws(CommandError) -> (rows: [Feature], wgs84: [Feature])
    {
        let columns = search.columns
        var rows: [Feature] = [], originals: [Feature] = []
        // Each output reads one of the two (GeoJSON the features as read, the others those measured): only that
        // one is made.
        func add(_ left: Int, _ properties: [String: JSONValue], id: JSONValue?) {
            if fixed {
                rows.append(Feature(geometry: lefts[left], properties: properties, id: id))
            } else {
                originals.append(Feature(geometry: batch.geometry(at: left), properties: properties, id: id))
            }
        }
        var counts = [Int](repeating: 0, count: batch.count)
        for p in pairs { counts[p.leftIndex] += 1 }
        switch command.shape {
        case .pairs:
            var leftProperties: (index: Int, properties: [String: JSONValue])?
            let distanceColumn = NearColumns.distanceColumn(search.unit)
            for p in pairs {
                if leftProperties?.index != p.leftIndex {
                    leftProperties = (p.leftIndex, try columns.left(batch.properties(at: p.leftIndex),
                                                                    label: batch.labels[p.leftIndex], fixed: fixed))
                }
                var row = leftProperties!.properties
                columns.addRight(right.properties(at: p.rightIndex), to: &row)
                row[distanceColumn] = .number(p.distance)
                row["rank"] = .number(Double(p.rank))
                add(p.leftIndex, row, id: nil)
            }
        case .count, .leftOnly:
            for i in 0..<batch.count where command.shape == .count || counts[i] > 0 {
                var row = try columns.left(batch.properties(at: i), label: batch.labels[i], fixed: fixed)
                if command.shape == .count { row["near_count"] = .number(Double(counts[i])) }
                add(i, row, id: batch.id(at: i))
            }
        case .rightOnly:
            break
        }
        return (rows, originals)
    }
}
