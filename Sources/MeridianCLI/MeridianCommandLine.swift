import Foundation
import Meridian

/// Entry point of the `meridian` command line.
public enum MeridianCommandLine {
    /// Runs the command line with arguments (without the program name) and returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 { 0 }

    /// Flushes and exits.
    public static func exit(_ status: Int32) -> Never { Foundation.exit(status) }
}
