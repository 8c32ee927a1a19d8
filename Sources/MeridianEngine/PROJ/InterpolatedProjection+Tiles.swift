import Foundation
import MeridianCore

/// A tile of `InterpolatedProjection`: its level of cutting and its indices along x and y at that level.
struct ProjectionTileKey: Hashable {
    let level: Int
    let i: Int
    let j: Int
}

/// What `InterpolatedProjection` does with a tile's vertices.
enum ProjectionTile {
    /// The tile's interpolant.
    case model(TileModel)
    /// Cut into four: look at the next level.
    case cut
    /// Its vertices go through PROJ.
    case byPROJ
}

/// A tile's interpolants: each output coordinate as a sum of c_kl T_k(u) T_l(v) over k, l ≤ `degree`, for the
/// tile's coordinates u, v in [-1, 1], plus the value at the first node (the sums are of small numbers, added to it
/// last, so rounding stays at the last place of the result). The Chebyshev coefficients c_kl are computed from
/// PROJ's values at the Chebyshev points, then rewritten in powers of u and v (a_mn u^m v^n), which evaluate with 35
/// multiplications and as many additions for both coordinates at once (Horner's scheme); for degree 5 on [-1, 1] that changes the result by
/// a few units in the last place of the small sums, 1e-15° at most, and the checks see the polynomial as evaluated.
///
/// Packed in `TileModel.packedCount` pairs of doubles, so that a thread can copy it next to the others it uses
/// (`LocalTiles`) and evaluate it from a pointer: [0] the centre (x, y), [1] (2 / side, 1 / side), [2] the value
/// at the first node, [3] the tile's indices (i, j), then a_mn at [4 + m × n + n'], n = `degree` + 1.
struct TileModel: Sendable {
    /// Pairs of doubles in a packed model.
    static let packedCount = 4 + 36
    let packed: [SIMD2<Double>]

    /// The coefficient of u^m in T_k (k, m ≤ 5).
    private static let powers: [[Double]] = [
        [1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [-1, 0, 2, 0, 0, 0], [0, -3, 0, 4, 0, 0], [1, 0, -8, 0, 8, 0],
        [0, 5, 0, -20, 0, 16],
    ]

    /// The interpolants through `values` (x and y of the target) at the tile's Chebyshev points, in the order
    /// (node u, node v) with v varying fastest.
    init(level: Int, i: Int, j: Int, side: Double, values: ArraySlice<Coordinate>) {
        let n = InterpolatedProjection.degree + 1
        let first = values[values.startIndex]
        let origin = SIMD2(first.x, first.y)
        var packed = [SIMD2((Double(i) + 0.5) * side, (Double(j) + 0.5) * side), SIMD2(2 / side, 1 / side), origin,
                      SIMD2(Double(i), Double(j))]
        // T_k at node a: cos(k π (a + ½) / n).
        let t = (0..<n).map { k in (0..<n).map { a in cos(Double(k) * Double.pi * (Double(a) + 0.5) / Double(n)) } }
        var chebyshev = [[SIMD2<Double>]](repeating: [SIMD2<Double>](repeating: .zero, count: n), count: n)
        for k in 0..<n {
            for l in 0..<n {
                var sum = SIMD2<Double>()
                for a in 0..<n {
                    for b in 0..<n {
                        let v = values[values.startIndex + a * n + b]
                        sum += (SIMD2(v.x, v.y) - origin) * (t[k][a] * t[l][b])
                    }
                }
                chebyshev[k][l] = sum * ((k == 0 ? 1 : 2) * (l == 0 ? 1 : 2) / Double(n * n))
            }
        }
        for m in 0..<n {
            for p in 0..<n {
                var a = SIMD2<Double>()
                for k in m..<n where Self.powers[k][m] != 0 {
                    for l in p..<n where Self.powers[l][p] != 0 {
                        a += chebyshev[k][l] * (Self.powers[k][m] * Self.powers[l][p])
                    }
                }
                packed.append(a)
            }
        }
        self.packed = packed
    }

    /// The target's x and y at (x, y).
    func evaluate(_ x: Double, _ y: Double) -> Coordinate {
        packed.withUnsafeBufferPointer { Self.evaluate($0.baseAddress!, x, y) }
    }

    /// The target's x and y at (x, y) from a packed model.
    @inline(__always)
    static func evaluate(_ m: UnsafePointer<SIMD2<Double>>, _ x: Double, _ y: Double) -> Coordinate {
        let centre = m[0], scale = m[1].x, a = m + 4
        let u = SIMD2(repeating: (x - centre.x) * scale), v = SIMD2(repeating: (y - centre.y) * scale)
        // Σ_n a_mn v^n for power m of u, by Horner's scheme.
        @inline(__always) func row(_ k: Int) -> SIMD2<Double> {
            let r = a + 6 * k
            // (Multiplications and additions: a fused multiply-add is a library call without the FMA instructions.)
            var s = r[5] * v + r[4]
            s = s * v + r[3]
            s = s * v + r[2]
            s = s * v + r[1]
            return s * v + r[0]
        }
        var sum = row(5) * u + row(4)
        sum = sum * u + row(3)
        sum = sum * u + row(2)
        sum = sum * u + row(1)
        sum = sum * u + row(0)
        let p = m[2] + sum
        return Coordinate(x: p.x, y: p.y)
    }
}

/// The tiles one thread has met while it projects (one call, or one polygon's rings): an open-addressing table from
/// tile (its key packed in 64 bits, `packedKey`) to what to do there, with the interpolants copied into blocks of
/// memory owned by the thread (they never move), so that evaluating a vertex takes no lock and touches no reference
/// count. `release()` frees the memory.
struct LocalTiles {
    /// What to do with a tile's vertices, as stored: `byPROJ`, `cut`, or the address of a copied interpolant.
    typealias Value = UInt
    static let byPROJ: Value = 0
    static let cut: Value = 1
    /// A key no tile has (an empty slot).
    private static let empty = Int64.min

    private var keys: UnsafeMutablePointer<Int64>
    private var values: UnsafeMutablePointer<Value>
    private var capacity = 64
    private var count = 0
    private var blocks: [UnsafeMutablePointer<SIMD2<Double>>] = []
    private var room = 0
    private var next: UnsafeMutablePointer<SIMD2<Double>>?

    init() {
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: Self.empty, count: capacity)
        values = .allocate(capacity: capacity)
    }

    /// A tile's key in 64 bits: its level (0…5) and its indices ⌊x⌋, ⌊y⌋ of the coordinates in tile sides, each
    /// within ±2²⁹; nil for coordinates out of that range (or not finite: such vertices go through PROJ).
    @inline(__always)
    static func packedKey(level: Int, _ x: Double, _ y: Double) -> Int64? {
        guard abs(x) < 536_870_912, abs(y) < 536_870_912 else { return nil }
        // ⌊x⌋ by truncation and a correction below zero (no call to the C library's floor).
        var i = Int64(x), j = Int64(y)
        if Double(i) > x { i -= 1 }
        if Double(j) > y { j -= 1 }
        return Int64(level) << 60 | (i & 0x3FFF_FFFF) << 30 | (j & 0x3FFF_FFFF)
    }

    /// What was recorded for a tile, if it was met before.
    @inline(__always)
    func value(of key: Int64) -> Value? {
        let mask = capacity - 1
        var s = Self.slot(key) & mask
        while true {
            let k = keys[s]
            if k == key { return values[s] }
            if k == Self.empty { return nil }
            s = (s + 1) & mask
        }
    }

    /// Records a tile (copying its interpolant) and returns its value.
    mutating func insert(_ key: Int64, _ tile: ProjectionTile) -> Value {
        let value: Value
        switch tile {
        case .model(let m): value = UInt(bitPattern: copy(m))
        case .cut: value = Self.cut
        case .byPROJ: value = Self.byPROJ
        }
        if 2 * (count + 1) > capacity { grow() }
        put(key, value)
        count += 1
        return value
    }

    /// Frees the table and the copied interpolants (addresses handed out become invalid).
    func release() {
        keys.deallocate()
        values.deallocate()
        for b in blocks { b.deallocate() }
    }

    private mutating func put(_ key: Int64, _ value: Value) {
        let mask = capacity - 1
        var s = Self.slot(key) & mask
        while keys[s] != Self.empty { s = (s + 1) & mask }
        keys[s] = key
        values[s] = value
    }

    private mutating func grow() {
        let (oldKeys, oldValues, oldCapacity) = (keys, values, capacity)
        capacity *= 2
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: Self.empty, count: capacity)
        values = .allocate(capacity: capacity)
        for s in 0..<oldCapacity where oldKeys[s] != Self.empty { put(oldKeys[s], oldValues[s]) }
        oldKeys.deallocate()
        oldValues.deallocate()
    }

    /// Copies a packed interpolant into this thread's memory (blocks of 4, 8, 16, … interpolants).
    private mutating func copy(_ model: TileModel) -> UnsafePointer<SIMD2<Double>> {
        let stride = TileModel.packedCount
        if room == 0 {
            let models = 4 << min(blocks.count, 6)
            let block = UnsafeMutablePointer<SIMD2<Double>>.allocate(capacity: stride * models)
            blocks.append(block)
            next = block
            room = models
        }
        let destination = next!
        model.packed.withUnsafeBufferPointer { destination.initialize(from: $0.baseAddress!, count: stride) }
        next = destination + stride
        room -= 1
        return UnsafePointer(destination)
    }

    @inline(__always)
    private static func slot(_ key: Int64) -> Int {
        let h = UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h >> 40)
    }
}
