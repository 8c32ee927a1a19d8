import Foundation

/// A command-line error: usage errors exit with status 2, failures with 1. Printed as one line on stderr.
public enum CommandError: Error, Sendable, CustomStringConvertible {
    /// The arguments are wrong (unknown option, missing value, bad number); exit status 2.
    case usage(String)
    /// The command could not do its work (bad input file, engine error); exit status 1.
    case failure(String)

    /// The process exit status for this error.
    public var exitStatus: Int32 {
        switch self {
        case .usage: 2
        case .failure: 1
        }
    }

    public var description: String {
        switch self {
        case .usage(let m), .failure(let m): m
        }
    }
}
