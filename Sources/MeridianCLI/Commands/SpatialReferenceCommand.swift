import Foundation
import Meridian

/// `meridian srs`: describe a spatial reference: name, unit, area of use.
public enum SpatialReferenceCommand: Command {
    public static let name = "srs"
    public static let summary = "describe a spatial reference: name, unit, area of use"
    public static let help = "Usage: meridian srs (not yet implemented)"

    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        throw .failure("not yet implemented")
    }
}
