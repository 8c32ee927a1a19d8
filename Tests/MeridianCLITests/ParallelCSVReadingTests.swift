import Foundation
import Meridian
import Testing

@testable import MeridianCLI
@testable import MeridianIO

/// CSV points read on several threads (`CSVFeatureReader.readInParallel`, issue 29): for 1, 2, 3 and 5 threads the
/// same points, values, lines and table rows, and for bad records the same message, as one thread reading record by
/// record. The inputs are over `parallelMinimumBytes`, so that more than one thread reads them.
@Suite struct ParallelCSVReadingTests {
    /// The thread counts compared with one thread.
    static let threadCounts = [2, 3, 5]

    /// What a read gave: the points, column values, lines and table rows, or the error's message.
    struct Outcome: Equatable {
        var points: [Coordinate]?
        var values: [Double]?
        var lines: [Int]?
        var rows: [[String]]?
        var error: String?
    }

    /// `buffer --union --distance-field d`'s options: the points and one column.
    static let pointsAndDistance = FeatureInput.CSVOptions(pointsOnly: true, numericColumn: "d")

    /// Reads `text` as `points.csv` on `threads` threads.
    static func read(_ text: String, threads: Int, options: FeatureInput.CSVOptions = pointsAndDistance) -> Outcome {
        do {
            let input = try Parallelism.withThreadCount(threads) { () throws(CommandError) -> FeatureInput in
                try FeatureInput.read(Data(text.utf8), origin: InputOrigin(name: "points.csv"),
                                      inputSpatialReference: nil, defaultXYSpatialReference: nil, csv: options)
            }
            return Outcome(points: input.points, values: input.columnValues, lines: input.labels.lines,
                           rows: input.table?.rows)
        } catch {
            return Outcome(error: error.description)
        }
    }

    /// The next number in [0, 1) of a fixed linear congruential sequence.
    static func unit(_ state: inout UInt64) -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) * 0x1p-53
    }

    /// 40,000 `id,lon,lat,d` rows (about 1.7 MB) of random points (and `extraField` after each): with `lineEnd` after
    /// each, a blank line (or two) now and then, spaces or a tab after some distances, and no line end after the last
    /// row unless `finalLineEnd`.
    static func rows(lineEnd: String, finalLineEnd: Bool, extraField: String = "") -> [String] {
        var random: UInt64 = 29
        return (0..<40_000).map { i in
            let lon = -180 + 360 * unit(&random), lat = -90 + 180 * unit(&random), d = 1000 * unit(&random)
            let padding = i % 7 == 3 ? "  " : i % 11 == 5 ? "\t" : ""
            let blank = i % 503 == 17 ? lineEnd : i % 1009 == 400 ? lineEnd + lineEnd : ""
            return "\(i),\(lon),\(lat),\(d)\(padding)\(extraField)\(i == 39_999 && !finalLineEnd ? "" : lineEnd)\(blank)"
        }
    }

    /// The CSV text of `rows` under a header.
    static func text(_ rows: [String], lineEnd: String) -> String { "id,lon,lat,d" + lineEnd + rows.joined() }

    @Test(arguments: ["\n", "\r\n"], [true, false])
    func sameRowsForEveryThreadCount(lineEnd: String, finalLineEnd: Bool) {
        let text = Self.text(Self.rows(lineEnd: lineEnd, finalLineEnd: finalLineEnd), lineEnd: lineEnd)
        #expect(text.utf8.count > CSVFeatureReader.parallelMinimumBytes + 100_000)
        let one = Self.read(text, threads: 1)
        #expect(one.error == nil && one.points?.count == 40_000 && one.values?.count == 40_000)
        #expect(one.lines?.first == 2 && one.lines?.last ?? 0 > 40_000)
        for threads in Self.threadCounts {
            let same = Self.read(text, threads: threads) == one  // (a Boolean: Swift Testing would print every row)
            #expect(same, "\(threads) threads")
        }
    }

    /// `meridian project`'s options: the points, and a table of the other columns.
    @Test func sameTableForEveryThreadCount() {
        let text = Self.text(Self.rows(lineEnd: "\r\n", finalLineEnd: true), lineEnd: "\r\n")
        let options = FeatureInput.CSVOptions(keepTable: true, tableWithoutCoordinates: true, pointsOnly: true)
        let one = Self.read(text, threads: 1, options: options)
        #expect(one.error == nil && one.rows?.count == 40_000 && one.rows?.last?.first == "39999")
        for threads in Self.threadCounts {
            let same = Self.read(text, threads: threads, options: options) == one
            #expect(same, "\(threads) threads")
        }
    }

    /// Bad records: a coordinate that is not a number, a latitude of 91, a missing field, a distance that is not a
    /// number.
    static let badRecords = ["7,east,12.5,10", "7,12.5,91,10", "7,12.5,40", "7,12.5,40,far"]

    /// A bad record in the first, a middle or the last part of the records (the last row, without a line end), or
    /// two in different parts: the message of the first, as with one thread.
    @Test(arguments: badRecords, [[5], [20_000], [39_999], [13_000, 31_000], [31_000, 13_000]])
    func firstBadRecordsMessage(bad: String, at rowsReplaced: [Int]) {
        var rows = Self.rows(lineEnd: "\n", finalLineEnd: false)
        for (k, row) in rowsReplaced.enumerated() {
            let record = k == 0 ? bad : Self.badRecords[(Self.badRecords.firstIndex(of: bad)! + 1) % 4]
            rows[row] = record + (row == 39_999 ? "" : "\n")
        }
        let text = Self.text(rows, lineEnd: "\n")
        let one = Self.read(text, threads: 1)
        #expect(one.error?.hasPrefix("points.csv: ") == true, "\(one.error ?? "no error")")
        for threads in Self.threadCounts {
            #expect(Self.read(text, threads: threads).error == one.error, "\(threads) threads")
        }
    }

    /// Reads `text` in batches of `size` rows on `threads` threads: each batch's points, its first row's number
    /// and its lines, then the error's message if any.
    static func readBatches(_ text: String, size: Int, threads: Int)
        -> (batches: [(points: [Coordinate], first: Int, lines: [Int])], error: String?)
    {
        var batches: [(points: [Coordinate], first: Int, lines: [Int])] = []
        do {
            let options = FeatureInput.CSVOptions(keepTable: true, tableWithoutCoordinates: true, pointsOnly: true,
                                                  batchSize: size)
            _ = try Parallelism.withThreadCount(threads) { () throws(CommandError) -> FeatureInput in
                try FeatureInput.read(Data(text.utf8), origin: InputOrigin(name: "points.csv"),
                                      inputSpatialReference: nil, defaultXYSpatialReference: nil, csv: options) {
                    batch throws(CommandError) in
                    batches.append((batch.points ?? [], batch.labels.first, batch.labels.lines ?? []))
                }
            }
            return (batches, nil)
        } catch {
            return (batches, error.description)
        }
    }

    /// Read in batches (`meridian project`), a window of at most a batch's records at a time on the threads: the
    /// same rows with the same numbers and lines as one thread's batches, every batch at most the batch size; and
    /// a bad record in a middle batch gives the same message, after batches that are a prefix of the rows.
    @Test(arguments: [1_000, 65_536])
    func batchesHoldTheSameRows(size: Int) {
        let text = Self.text(Self.rows(lineEnd: "\n", finalLineEnd: true), lineEnd: "\n")
        let one = Self.readBatches(text, size: size, threads: 1)
        let points = one.batches.flatMap { $0.points }, lines = one.batches.flatMap { $0.lines }
        #expect(one.error == nil && points.count == 40_000)
        for threads in Self.threadCounts {
            let read = Self.readBatches(text, size: size, threads: threads)
            let same = read.error == nil && read.batches.flatMap { $0.points } == points
                && read.batches.flatMap { $0.lines } == lines
            #expect(same, "\(threads) threads")
            var first = 0
            for batch in read.batches {
                #expect(batch.first == first && batch.points.count <= size && batch.points.count == batch.lines.count)
                first += batch.points.count
            }
        }
        var rows = Self.rows(lineEnd: "\n", finalLineEnd: true)
        rows[23_456] = "7,12.5,91,10\n"
        let bad = Self.text(rows, lineEnd: "\n")
        let oneBad = Self.readBatches(bad, size: size, threads: 1)
        #expect(oneBad.error?.contains("line ") == true, "\(oneBad.error ?? "no error")")
        for threads in Self.threadCounts {
            let read = Self.readBatches(bad, size: size, threads: threads)
            #expect(read.error == oneBad.error, "\(threads) threads")
            let handed = read.batches.flatMap { $0.points }
            let prefix = handed.count <= 23_456 && Array(points.prefix(handed.count)) == handed
            #expect(prefix, "\(threads) threads")
        }
    }

    /// A quote anywhere after the header (here a quoted name with a line break in the middle of the input): read
    /// record by record, the same for every thread count, each row on its own line.
    @Test func quotedFieldReadRecordByRecord() {
        var rows = Self.rows(lineEnd: "\n", finalLineEnd: true, extraField: ",n")
        rows[20_000] = "20000,12.5,40,10,\"two\nlines\"\n"
        let one = Self.read("id,lon,lat,d,name\n" + rows.joined(), threads: 1)
        #expect(one.error == nil && one.points?.count == 40_000 && one.points?[20_000] == Coordinate(x: 12.5, y: 40))
        #expect(one.lines.map { $0[20_001] - $0[20_000] } == 2)
        for threads in Self.threadCounts {
            let same = Self.read("id,lon,lat,d,name\n" + rows.joined(), threads: threads) == one
            #expect(same, "\(threads) threads")
        }
    }
}
