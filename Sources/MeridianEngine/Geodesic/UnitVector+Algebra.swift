import Foundation
import MeridianCore

extension UnitVector {
    /// A vector from its components (not normalized).
    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
    /// The dot product.
    func dot(_ o: UnitVector) -> Double { x * o.x + y * o.y + z * o.z }
    /// The cross product (not normalized).
    func cross(_ o: UnitVector) -> UnitVector {
        UnitVector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
    }
    /// The squared chord to `o`.
    func chord2(to o: UnitVector) -> Double {
        let dx = x - o.x, dy = y - o.y, dz = z - o.z
        return dx * dx + dy * dy + dz * dz
    }
}
