import Foundation
import Meridian

/// Reading the records of a large CSV of points on several threads (issue 29): the same points, values, lines and
/// errors as reading them one by one.
extension CSVFeatureReader {
    /// The fewest bytes of records (after the header) read on several threads: below it, one thread is quick enough.
    static let parallelMinimumBytes = 1 << 20

    /// Reads every record after the header on `threads` threads when that reads what one thread would: for
    /// `pointsOnly`, at least `parallelMinimumBytes` of records and no quote after the header (so that every line
    /// end ends a record or a blank line). Read in batches (`options.batchSize`), the records go a window of at most
    /// a batch's records at a time, each window read on the threads and handed to `batch` whole; the rows handed
    /// over, their numbers and lines, are those of reading record by record, in batches of at most the same size.
    /// A window's records are cut into parts just after line feeds (`readInParallel(_:range:line:threads:progress:)`).
    /// - Parameters:
    ///   - bytes: The whole input.
    ///   - header: The reader that has read the header record (and nothing more).
    ///   - threads: How many threads to use.
    ///   - progress: Shown how many bytes are read, as parts finish.
    ///   - batch: With `options.batchSize`: receives the rows a window at a time.
    /// - Returns: false, having read nothing, when the records are to be read one by one instead.
    /// - Throws: As `read`, for the first bad record.
    mutating func readInParallel(_ bytes: UnsafeBufferPointer<UInt8>, after header: CSVRecordReader, threads: Int,
                                 progress: ProgressLine?, batch: (FeatureInput) throws(CommandError) -> Void)
        throws -> Bool
    {
        let start = header.offset, size = bytes.count - start
        guard options.pointsOnly, threads > 1, size >= Self.parallelMinimumBytes,
              let base = bytes.baseAddress, memchr(base + start, Int32(UInt8(ascii: "\"")), size) == nil
        else { return false }
        guard let batchSize = options.batchSize else {
            _ = try readInParallel(bytes, range: start..<bytes.count, line: header.line, threads: threads,
                                   progress: progress)
            return true
        }
        var lower = start, line = header.line
        while lower < bytes.count {
            // The window: up to just after the batch's last line feed, so that it holds at most a batch's records
            // (blank lines among them make it fewer) and `read` never hands a batch over by itself.
            let upper = Self.end(afterLineFeeds: batchSize, in: bytes, from: lower)
            line = try readInParallel(bytes, range: lower..<upper, line: line, threads: threads, progress: progress)
            try handOver(batch)
            lower = upper
        }
        return true
    }

    /// Reads the records of `range` (starting and ending where lines do) on `threads` threads: cut into parts just
    /// after line feeds, each part read with `read` by whichever thread takes it, its lines numbered from 1, and
    /// the parts then added in order, their lines moved on. A part that failed is read again here, after the parts
    /// before it, with its real lines and row numbers, so that the error is the one of reading record by record:
    /// the first bad record's.
    /// - Parameters:
    ///   - bytes: The whole input.
    ///   - range: The records to read.
    ///   - line: The line on which `range` starts.
    ///   - threads: How many threads to use.
    ///   - progress: Shown how many bytes are read, as parts finish.
    /// - Returns: The line after the range.
    /// - Throws: As `read`, for the first bad record.
    private mutating func readInParallel(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>, line: Int,
                                         threads: Int, progress: ProgressLine?) throws -> Int {
        let ranges = Self.parts(of: bytes, range, count: 4 * threads)
        let shared = SharedCSVParts(bytes: bytes, ranges: ranges, empty: emptyPart(capacity: 0), progress: progress,
                                    start: range.lowerBound)
        let parts = ForkJoin.map(count: ranges.count, threads: threads) { (k: Int) -> (rows: CSVFeatureReader, lineEnds: Int)? in
            shared.read(part: k)
        }
        var line = line
        for (k, part) in parts.enumerated() {
            if let part {
                append(part.rows, lineOffset: line - 1)
                line += part.lineEnds
            } else {
                var reader = CSVRecordReader(bytes, range: ranges[k], line: line)
                while try reader.next() { try read(&reader, progress: nil, batch: { _ throws(CommandError) in }) }
                line = reader.line
            }
        }
        return line
    }

    /// Where the `count`-th line feed from `start` ends (just after it), or the input's end when there are fewer.
    private static func end(afterLineFeeds count: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var position = start
        for _ in 0..<count {
            guard position < bytes.count,
                  let lineFeed = memchr(base + position, Int32(UInt8(ascii: "\n")), bytes.count - position)
            else { return bytes.count }
            position = UnsafeRawPointer(lineFeed) - UnsafeRawPointer(base) + 1
        }
        return position
    }

    /// About `count` ranges of about equal size that cover `range`, each but the last ending just after a line feed
    /// (fewer when lines are long).
    private static func parts(of bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, count: Int) -> [Range<Int>] {
        guard let base = bytes.baseAddress else { return [] }
        let start = range.lowerBound, end = range.upperBound
        var ranges: [Range<Int>] = []
        var lower = start
        for k in 1...count where lower < end {
            var upper = max(lower, start + (end - start) * k / count)
            if upper < end {  // on to just after the next line feed
                let lineFeed = memchr(base + upper, Int32(UInt8(ascii: "\n")), end - upper)
                upper = lineFeed.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) + 1 } ?? end
            }
            ranges.append(lower..<upper)
            lower = upper
        }
        return ranges
    }
}

/// What the threads of `CSVFeatureReader.readInParallel` share: the input's bytes (read only, alive for the whole
/// call), the parts, a reader without rows to start each part from, and the bytes read so far.
private struct SharedCSVParts: @unchecked Sendable {
    /// The whole input.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The parts of the records, in order.
    let ranges: [Range<Int>]
    /// A reader without rows, copied for each part (`emptyPart`).
    let empty: CSVFeatureReader
    /// Shown how many bytes are read.
    let progress: ProgressLine?
    /// Where the records start in `bytes`.
    let start: Int
    /// The bytes of the parts read so far.
    let done = LockedValue(0)

    /// Part k read with its lines numbered from 1, and the line ends it holds; nil when a record is bad.
    func read(part k: Int) -> (rows: CSVFeatureReader, lineEnds: Int)? {
        var reader = CSVRecordReader(bytes, range: ranges[k], line: 1)
        var rows = empty.emptyPart(capacity: ranges[k].count / 24)  // rows of a few numbers
        do {
            while try reader.next() { try rows.read(&reader, progress: nil, batch: { _ throws(CommandError) in }) }
        } catch {
            return nil
        }
        let read = done.withLock { total in
            total += ranges[k].count
            return total
        }
        progress?.update(start + read)
        return (rows, reader.line - 1)
    }
}
