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
/// last, so rounding stays at the last place of the result).
///
/// Packed in `TileModel.packedCount` pairs of doubles, so that a thread can copy it next to the others it uses
/// (`LocalTiles`) and evaluate it from a pointer: [0] the centre (x, y), [1] (2 / side, 1 / side), [2] the value
/// at the first node, [3] the tile's indices (i, j), then c_kl at [4 + k × n + l], n = `degree` + 1.
struct TileModel: Sendable {
    /// Pairs of doubles in a packed model.
    static let packedCount = 4 + 36
    let packed: [SIMD2<Double>]

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
        for k in 0..<n {
            for l in 0..<n {
                var sum = SIMD2<Double>()
                for a in 0..<n {
                    for b in 0..<n {
                        let v = values[values.startIndex + a * n + b]
                        sum += (SIMD2(v.x, v.y) - origin) * (t[k][a] * t[l][b])
                    }
                }
                packed.append(sum * ((k == 0 ? 1 : 2) * (l == 0 ? 1 : 2) / Double(n * n)))
            }
        }
        self.packed = packed
    }

    /// The target's x and y at (x, y).
    func evaluate(_ x: Double, _ y: Double) -> Coordinate {
        packed.withUnsafeBufferPointer { Self.evaluate($0.baseAddress!, x, y) }
    }

    /// Whether (x, y) lies in the packed model's tile (the same rounding `InterpolatedProjection` puts it there with).
    @inline(__always)
    static func contains(_ m: UnsafePointer<SIMD2<Double>>, _ x: Double, _ y: Double) -> Bool {
        let inverseSide = m[1].y, ij = m[3]
        return (x * inverseSide).rounded(.down) == ij.x && (y * inverseSide).rounded(.down) == ij.y
    }

    /// The target's x and y at (x, y) from a packed model.
    @inline(__always)
    static func evaluate(_ m: UnsafePointer<SIMD2<Double>>, _ x: Double, _ y: Double) -> Coordinate {
        let centre = m[0], scale = m[1].x, c = m + 4
        let u = (x - centre.x) * scale, v = (y - centre.y) * scale
        // T_0 … T_5 of u and of v.
        let u2 = 2 * u * u - 1, u3 = 2 * u * u2 - u, u4 = 2 * u * u3 - u2, u5 = 2 * u * u4 - u3
        let v2 = 2 * v * v - 1, v3 = 2 * v * v2 - v, v4 = 2 * v * v3 - v2, v5 = 2 * v * v4 - v3
        @inline(__always) func row(_ k: Int) -> SIMD2<Double> {
            let r = c[6 * k] + c[6 * k + 1] * v + c[6 * k + 2] * v2
            return r + c[6 * k + 3] * v3 + c[6 * k + 4] * v4 + c[6 * k + 5] * v5
        }
        var sum = row(0) + row(1) * u + row(2) * u2
        sum += row(3) * u3 + row(4) * u4 + row(5) * u5
        let p = m[2] + sum
        return Coordinate(x: p.x, y: p.y)
    }
}

/// The tiles one thread has met during one `InterpolatedProjection.transform`: an open-addressing table from tile to
/// what to do there, with the interpolants copied into blocks of memory owned by the thread (they never move), so
/// that evaluating a vertex takes no lock and touches no reference count. `release()` frees the blocks.
struct LocalTiles {
    /// What to do with a tile's vertices.
    enum State {
        case model(UnsafePointer<SIMD2<Double>>)
        case cut
        case byPROJ
    }

    private struct Slot {
        var key: ProjectionTileKey?
        var state: State = .byPROJ
    }

    private var slots = [Slot](repeating: Slot(), count: 256)
    private var count = 0
    private var blocks: [UnsafeMutablePointer<SIMD2<Double>>] = []
    private var usedInLastBlock = Self.modelsPerBlock
    private static let modelsPerBlock = 64

    /// The state of a tile met before, if any.
    func state(of key: ProjectionTileKey) -> State? {
        let mask = slots.count - 1
        var s = Self.hash(key) & mask
        while let k = slots[s].key {
            if k == key { return slots[s].state }
            s = (s + 1) & mask
        }
        return nil
    }

    /// Records a tile (copying its interpolant) and returns its state.
    mutating func insert(_ key: ProjectionTileKey, _ tile: ProjectionTile) -> State {
        let state: State
        switch tile {
        case .model(let m): state = .model(copy(m))
        case .cut: state = .cut
        case .byPROJ: state = .byPROJ
        }
        if 2 * (count + 1) > slots.count { grow() }
        put(key, state)
        count += 1
        return state
    }

    /// Frees the copied interpolants (pointers handed out become invalid).
    func release() {
        for b in blocks { b.deallocate() }
    }

    private mutating func put(_ key: ProjectionTileKey, _ state: State) {
        let mask = slots.count - 1
        var s = Self.hash(key) & mask
        while slots[s].key != nil { s = (s + 1) & mask }
        slots[s] = Slot(key: key, state: state)
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: 2 * old.count)
        for slot in old { if let k = slot.key { put(k, slot.state) } }
    }

    private mutating func copy(_ model: TileModel) -> UnsafePointer<SIMD2<Double>> {
        let stride = TileModel.packedCount
        if usedInLastBlock == Self.modelsPerBlock {
            blocks.append(.allocate(capacity: stride * Self.modelsPerBlock))
            usedInLastBlock = 0
        }
        let destination = blocks[blocks.count - 1] + stride * usedInLastBlock
        usedInLastBlock += 1
        model.packed.withUnsafeBufferPointer { destination.initialize(from: $0.baseAddress!, count: stride) }
        return UnsafePointer(destination)
    }

    private static func hash(_ key: ProjectionTileKey) -> Int {
        var h = UInt(bitPattern: key.i) &* 0x9E37_79B9_7F4A_7C15
        h ^= UInt(bitPattern: key.j) &* 0xC2B2_AE3D_27D4_EB4F
        h ^= UInt(bitPattern: key.level) &* 0x1656_67B1_9E37_79F9
        h ^= h >> 29
        return Int(bitPattern: h)
    }
}
