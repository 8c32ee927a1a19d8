import Foundation
import MeridianCLI
@testable import MeridianIO

/// What a command run produced.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the command line in-process with captured streams.
func runCommand(_ arguments: [String], stdin: String = "") -> CommandResult {
    final class Buffers: @unchecked Sendable {
        var out = Data()
        var err = Data()
    }
    let buffers = Buffers()
    let io = CommandIO(
        readInput: { Data(stdin.utf8) }, writeOutput: { buffers.out.append($0) }, writeError: { buffers.err.append($0) })
    let status = MeridianCommandLine.run(arguments, io: io)
    return CommandResult(status: status, stdout: String(decoding: buffers.out, as: UTF8.self),
                         stderr: String(decoding: buffers.err, as: UTF8.self))
}

/// The package root (this file is Tests/MeridianCLITests/CLISupport.swift).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The reference data the tests read, carried in the repository (`Tests/Fixtures`, provenance in its README).
let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

/// Runs the built `meridian` executable as a user would (MERIDIAN_BIN, else .build/debug/meridian).
/// - Parameter timeout: Seconds after which the process is killed (see `runProgram`); nil: no limit.
func runBinary(_ arguments: [String], stdin: String? = nil, timeout: Double? = nil) throws -> CommandResult {
    let path = ProcessInfo.processInfo.environment["MERIDIAN_BIN"]
        ?? packageRoot.appendingPathComponent(".build/debug/meridian").path
    return try runProgram(path, arguments, stdin: stdin, timeout: timeout)
}

/// Runs a program (meridian, or GDAL's tools for independent files) with captured streams.
/// - Parameters:
///   - path: The executable.
///   - stdin: Written to its standard input, which is then closed.
///   - timeout: Seconds after which the process is killed (its status is then SIGKILL's), so that a command that
///     would hang fails its test instead of stopping the suite; nil: no limit.
func runProgram(_ path: String, _ arguments: [String], stdin: String? = nil, timeout: Double? = nil) throws
    -> CommandResult
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let timeout {
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { kill(pid, SIGKILL) }
    }
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// A fresh temporary folder, removed by the caller.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
