import Foundation
import Meridian

/// `meridian buffer`: buffer points, lines and polygons (planar or geodesic).
public enum BufferCommand: Command {
    public static let name = "buffer"
    public static let summary = "buffer points, lines and polygons (planar or geodesic)"
    public static let help = "Usage: meridian buffer (not yet implemented)"

    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        throw .failure("not yet implemented")
    }
}
