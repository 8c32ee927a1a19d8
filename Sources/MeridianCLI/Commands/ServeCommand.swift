import Dispatch
import Foundation
import MeridianIO
import MeridianViewer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `meridian serve`: the local web viewer (buffers around points; create and save KML).
public struct ServeCommand: Command {
    /// "serve".
    public static let name = "serve"
    /// One line for `meridian --help`.
    public static let summary = "serve the local web map (buffers around points; create and save KML)"
    /// What `--help` says before the options.
    public static let discussion = """
        Serves the viewer's pages and JSON API on libmicrohttpd until Ctrl-C (SIGINT) or SIGTERM.
        Page 1 creates buffers around points (EPSG:32038, Texas); page 2 sketches placemarks and saves them as KMZ.
        Everything works offline: the page, its scripts and its basemap ship with Meridian.

        Prints one line, "Meridian viewer: http://HOST:PORT/", once the server is listening.
        """
    /// Examples for `--help`.
    public static let examples = ["meridian serve --port 8080     then open http://127.0.0.1:8080/"]

    @Option("--host", as: .text("ADDRESS", summary: "an IP address"),
            help: "the IP address to listen on (127.0.0.1 is loopback only; ::1 for IPv6)")
    var host = "127.0.0.1"

    @Option("--port", "-p", as: .wholeNumber(0...65535, placeholder: "PORT"), help: "the TCP port (0 picks a free port)")
    var port = 8080

    @Option("--docs", as: .path("FOLDER"), help: "also serve the documentation built by scripts/docs.sh (.build/docs) at /docs/")
    var docsFolder: String?

    /// A command with every option at its default.
    public init() {}

    /// Starts the viewer, prints its URL and serves until SIGINT or SIGTERM, then stops it cleanly.
    /// - Parameter io: The standard streams (the URL goes to standard output, progress notes to standard error).
    /// - Throws: `CommandError.failure` when the site or the documentation is missing or the port is busy.
    public func run(io: CommandIO) throws(CommandError) {
        let docs = try documentation()
        // Block SIGINT and SIGTERM before any thread starts (libmicrohttpd's and Dispatch's threads inherit the
        // mask): a signal arriving before the dispatch sources below are registered then stays pending instead of
        // being lost, and the sources (signalfd-based on Linux) still receive it.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        let viewer: ViewerServer
        let url: URL
        do {
            viewer = try ViewerServer(docs: docs)
            url = try viewer.start(host: host, port: port)
        } catch {
            throw .failure(error.description)
        }
        let stopped = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "meridian.serve.signals")
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)  // let the dispatch source, not the default action, handle it
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { stopped.signal() }
            source.resume()
            sources.append(source)
        }
        io.print("Meridian viewer: \(url.absoluteString)")
        if docs != nil { io.note("Documentation: \(url.absoluteString)docs/documentation/meridian/") }
        if !["127.0.0.1", "localhost", "::1"].contains(host) {
            io.note("warning: listening on \(host), not loopback: other machines can reach the viewer")
        }
        stopped.wait()
        io.note("Stopping the viewer…")
        // Stopping cancels the running computations and waits for the server's threads; a thread inside a C call
        // that no budget check interrupts is not waited for longer than the grace period.
        guard Self.finishes(within: Self.stopGraceSeconds, { viewer.stop() }) else {
            io.note("Stopped; a request still running after \(Self.stopGraceSeconds) s was abandoned.")
            // Not exit(): its handlers would tear down libraries that the abandoned thread is still using.
            _exit(0)
        }
        for source in sources { source.cancel() }
        io.note("Stopped.")
    }

    /// How long a stop waits for running requests after cancelling them, in seconds.
    static let stopGraceSeconds = 1.5

    /// Runs `work` on a thread of its own and waits at most `seconds` for it (it goes on if it takes longer).
    /// - Returns: Whether it finished in time.
    static func finishes(within seconds: Double, _ work: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            work()
            done.signal()
        }
        return done.wait(timeout: .now() + seconds) == .success
    }

    /// The documentation site of `--docs`, if given.
    /// - Throws: `CommandError.failure` when the folder holds no site.
    private func documentation() throws(CommandError) -> StaticSite? {
        guard let docsFolder else { return nil }
        let folder = URL(fileURLWithPath: docsFolder)
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.html").path) else {
            throw .failure("--docs \(TerminalText.escaped(docsFolder)): no documentation site there "
                + "(no index.html); build it with scripts/docs.sh")
        }
        do { return try StaticSite(folder: folder) } catch {
            throw .failure("--docs \(TerminalText.escaped(docsFolder)): \(TerminalText.escaped(error.description))")
        }
    }
}
