import Foundation
import Meridian

/// `meridian project`: project coordinates between spatial references.
public enum ProjectCommand: Command {
    public static let name = "project"
    public static let summary = "project coordinates between spatial references"
    public static let help = "Usage: meridian project (not yet implemented)"

    public static func run(_ arguments: inout Arguments, io: CommandIO) throws(CommandError) {
        throw .failure("not yet implemented")
    }
}
