import Foundation
import Meridian
import MeridianIO

// MARK: A batch on several threads

extension NearJob {
    /// LEFT features searched (and, for a CSV of pairs, written as text) by one thread at a time.
    static let chunkSize = 1024

    /// A batch's pairs (`leftIndex`: positions in the batch) and, with `csv`, their rows as CSV text, a piece per
    /// chunk.
    struct BatchResult {
        /// The pairs, in the order of one search of the whole batch.
        var pairs: [NearPair] = []
        /// The CSV rows of the pairs, in order (empty without `csv`).
        var text: [Data] = []
    }

    /// The ranges of the chunks of a batch of `count` LEFT features: `chunkSize` each, the last one shorter.
    static func chunkRanges(_ count: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: chunkSize).map { $0..<min(count, $0 + chunkSize) }
    }

    /// A LEFT batch ready to search: its features in the spatial reference measured in, a chunk at a time
    /// (`chunkRanges`; `NearJob.lefts(of:search:)`), and its distances.
    struct Prepared {
        let batch: FeatureInput
        /// One per chunk.
        let chunks: [NearLefts]
        /// One search distance for all, one per feature, or none (`distances(of:unit:)`).
        let distances: [Double]?
    }

    /// Searches a group of batches cut into chunks of `chunkSize` LEFT features, each chunk searched (and written as
    /// CSV rows with `csv`) by whichever of `threads` threads is free (`OrderedWorkSharing`) and put back in order:
    /// the same pairs and bytes as one search of each whole batch, whatever the timing.
    func searchGroup(_ group: [Prepared], search: Search, right: FeatureInput, csv: NearCSVRows?, threads: Int)
        throws(CommandError) -> [BatchResult]
    {
        var spans: [(batch: Int, chunk: Int, range: Range<Int>)] = []
        for (b, prepared) in group.enumerated() {
            for (c, range) in Self.chunkRanges(prepared.batch.count).enumerated() { spans.append((b, c, range)) }
        }
        var results = [BatchResult](repeating: BatchResult(), count: group.count)
        let shared = SharedGroup(job: self, group: group, spans: spans, search: search, right: right, csv: csv)
        try OrderedWorkSharing.run(count: spans.count, window: threads > 1 ? 2 * threads : 0, helpers: threads - 1) {
            (k: Int) throws(CommandError) -> BatchResult in
            try shared.chunk(k)
        } consume: { (chunk: BatchResult, k: Int) throws(CommandError) in
            results[spans[k].batch].pairs += chunk.pairs
            results[spans[k].batch].text += chunk.text
        }
        return results
    }
}

extension NearJob {
    /// Starts `process` of a group of batches on another thread once the group `after` is searched (at once on
    /// this one with one thread), for `run` to collect once it has read the groups after.
    func start(_ group: [FeatureInput], search: Search, right: FeatureInput, file: OutputFile, after: NearPending?)
        -> NearPending
    {
        let box = NearPending.Box()
        let work = SharedProcess(job: self, group: group, search: search, right: right, file: file)
        let before = after?.task
        let task = BackgroundTask(inline: Parallelism.threadCount < 2) { () throws(CommandError) in
            // One group searched at a time, on the threads `searchGroup` uses (whether the one before failed is
            // its own collection's business).
            _ = try? before?.wait()
            box.value = try work.job.process(work.group, search: work.search, right: work.right, file: work.file)
        }
        return NearPending(task: task, box: box)
    }
}

/// A group of LEFT batches being searched on another thread.
struct NearPending {
    /// Where the thread leaves its answer (written before the task ends, read after `task.wait()`).
    final class Box: @unchecked Sendable {
        var value: [NearJob.Processed]?
    }

    /// The search.
    let task: BackgroundTask<CommandError>
    /// Its answer.
    let box: Box
}

/// What `NearJob.start`'s thread reads (read only while it runs).
private struct SharedProcess: @unchecked Sendable {
    let job: NearJob
    let group: [FeatureInput]
    let search: NearJob.Search
    let right: FeatureInput
    let file: OutputFile
}

/// What the threads of `NearJob.searchGroup` share, all read only: the job (its options), the batches, the index.
private struct SharedGroup: @unchecked Sendable {
    let job: NearJob
    let group: [NearJob.Prepared]
    /// Chunk k: chunk `chunk`, LEFT features `range`, of batch `batch`.
    let spans: [(batch: Int, chunk: Int, range: Range<Int>)]
    let search: NearJob.Search
    let right: FeatureInput
    let csv: NearCSVRows?

    /// Chunk `k`'s pairs (positions in its batch) and CSV rows.
    func chunk(_ k: Int) throws(CommandError) -> NearJob.BatchResult {
        let (b, c, range) = spans[k]
        let prepared = group[b]
        // The chunk's own labels and distances (a failure's message is made again from the whole batch).
        let single = prepared.distances?.count == 1
        let own = prepared.distances.map { single ? $0 : Array($0[range]) }
        var pairs = try job.pairs(prepared.chunks[c], in: search.spatialReference, distances: own, single: single,
                                  labels: prepared.batch.labels.slice(range), search: search, right: right.labels)
        for i in pairs.indices { pairs[i].leftIndex += range.lowerBound }
        guard let csv else { return NearJob.BatchResult(pairs: pairs) }
        // Room for rows of about N1's length (88 bytes: two IDs, two numbers, the rank, a point's WKT) without growing.
        var text = ByteBuffer(capacity: 128 * pairs.count + 64)
        try csv.append(pairs, lefts: prepared.chunks[c], first: range.lowerBound, of: prepared.batch, to: &text)
        return NearJob.BatchResult(pairs: pairs, text: [text.data()])
    }
}

// MARK: A chunk of LEFT features

/// A chunk of LEFT features as searched: their geometries, or the coordinates of their points (a batch of points
/// searched for a CSV of pairs as read: no geometry, nor a reference to its spatial reference, made per point).
enum NearLefts {
    /// The features' geometries, checked and measured (`NearJob.measured`).
    case geometries([Geometry])
    /// The coordinates of features that are all points, finite, in the spatial reference measured in.
    case points([Coordinate])

    /// Appends feature `i`'s well-known text (a point's as `WKT.write(_:to:)` writes a `Point`).
    func appendWKT(of i: Int, to out: inout ByteBuffer) {
        switch self {
        case .geometries(let geometries): WKT.write(geometries[i], to: &out)
        case .points(let points): WKT.writePoint(points[i], to: &out)
        }
    }

    /// The features' geometries (points made in `spatialReference`).
    func geometries(in spatialReference: SpatialReference) -> [Geometry] {
        switch self {
        case .geometries(let geometries): geometries
        case .points(let points): points.map { .point(Point($0, spatialReference: spatialReference)) }
        }
    }
}

// MARK: CSV rows of pairs without a row per pair

/// Writes a CSV of pairs straight from the batch: each LEFT feature's cells and WKT made once for all its pairs,
/// each RIGHT feature's cells once for the run, so no dictionary or `Feature` is made per pair. The bytes are those
/// of the general path (`NearJob.rows`, then `NearOutput`), which is used instead when a RIGHT feature has a
/// property outside RIGHT's columns (it would land in the row under its own name).
struct NearCSVRows: Sendable {
    /// The output's columns.
    let columns: NearColumns
    /// LEFT's attribute names (source names), in the order of their columns.
    let leftSources: [String]
    /// RIGHT feature `i`'s cells, each followed by a comma: `rightText[rightEnds[i] ..< rightEnds[i + 1]]`.
    let rightText: [UInt8]
    let rightEnds: [Int]

    /// The rows' writer, or nil when a RIGHT feature (of `input`) has a property that is not one of RIGHT's columns.
    init?(columns: NearColumns, left: NearColumns.Side, right rightSide: NearColumns.Side, input: FeatureInput) {
        self.columns = columns
        leftSources = left.names
        var text = ByteBuffer(capacity: 16 * input.count + 16)
        var ends = [0]
        ends.reserveCapacity(input.count + 1)
        let table = Self.table(of: input, names: rightSide.names)
        for i in 0..<input.count {
            guard Self.appendCells(of: input, at: i, names: rightSide.names, table: table, to: &text) else { return nil }
            ends.append(text.count)
        }
        rightText = text.withBytes { Array($0) }
        rightEnds = ends
    }

    /// Appends the rows of `pairs` (positions in the batch, grouped by LEFT feature; `lefts` the batch's features
    /// from position `first` on, as searched: in the spatial reference measured in).
    /// - Throws: `CommandError.failure` for a LEFT feature with a property outside the columns.
    func append(_ pairs: [NearPair], lefts: NearLefts, first: Int, of batch: FeatureInput, to out: inout ByteBuffer)
        throws(CommandError)
    {
        // The current LEFT feature's cells (each followed by a comma), then its WKT field from `split` on.
        var left = ByteBuffer(capacity: 256), wkt = ByteBuffer(capacity: 64)
        var current = -1, split = 0
        let table = Self.table(of: batch, names: leftSources)
        for p in pairs {
            if p.leftIndex != current {
                current = p.leftIndex
                left.removeAll()
                if !Self.appendCells(of: batch, at: current, names: leftSources, table: table, to: &left) {
                    left.removeAll()
                    try appendLeftCellsByRule(of: batch, at: current, to: &left)
                }
                split = left.count
                wkt.removeAll()
                lefts.appendWKT(of: current - first, to: &wkt)
                wkt.withBytes { CSV.appendField(bytes: $0, to: &left) }
            }
            left.withBytes { out.append(UnsafeRawBufferPointer(rebasing: $0[..<split])) }
            rightText.withUnsafeBytes {
                out.append(UnsafeRawBufferPointer(rebasing: $0[rightEnds[p.rightIndex]..<rightEnds[p.rightIndex + 1]]))
            }
            NearColumns.appendNumber(p.distance, to: &out)
            out.append(UInt8(ascii: ","))
            NearColumns.appendNumber(Double(p.rank), to: &out)
            out.append(UInt8(ascii: ","))
            left.withBytes { out.append(UnsafeRawBufferPointer(rebasing: $0[split...])) }
            CSV.endRecord(&out)
        }
    }

    /// The input's columns when they are `names`, in that order (a feature table read as columns), else nil.
    private static func table(of input: FeatureInput, names: [String]) -> FeatureColumns? {
        input.columns.flatMap { $0.names == names ? $0 : nil }
    }

    /// Appends feature `i`'s values of `names`, each followed by a comma — from `table` (`table(of:names:)`) when
    /// given, else from its properties — and returns whether the feature has no property outside `names`.
    private static func appendCells(of input: FeatureInput, at i: Int, names: [String], table: FeatureColumns?,
                                    to out: inout ByteBuffer) -> Bool {
        if let table {
            for c in table.values.indices {
                NearColumns.appendCell(table.values[c][i], to: &out)
                out.append(UInt8(ascii: ","))
            }
            return true
        }
        let properties = input.properties(at: i)
        var present = 0
        for name in names {
            let value = properties[name]
            if value != nil { present += 1 }
            NearColumns.appendCell(value, to: &out)
            out.append(UInt8(ascii: ","))
        }
        return present == properties.count
    }

    /// Appends LEFT feature `i`'s cells by the general rule, for a feature with a property outside LEFT's columns:
    /// `NearColumns.left` refuses it (or, should it not, names its cells).
    private func appendLeftCellsByRule(of batch: FeatureInput, at i: Int, to out: inout ByteBuffer)
        throws(CommandError)
    {
        let row = try columns.left(batch.properties(at: i), label: batch.labels[i], fixed: true)
        for name in columns.names.prefix(leftSources.count) {
            NearColumns.appendCell(row[name], to: &out)
            out.append(UInt8(ascii: ","))
        }
    }
}
