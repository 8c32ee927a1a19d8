import MeridianCLI

#if canImport(Glibc)
import Glibc

// Two malloc arenas (glibc's mallopt(M_ARENA_MAX = -8, 2); <malloc.h> is not in Swift's Glibc module): the worker
// threads of a large union and its output (`ForkJoin`, `OrderedWorkSharing`) would otherwise get up to 16 arenas (8 per core) whose
// freed memory the others do not reuse: the 1M-point P5 union peaked at 660–800 MB with them, 443 MB with two.
if let mallopt = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {  // RTLD_DEFAULT
    _ = unsafeBitCast(mallopt, to: (@convention(c) (Int32, Int32) -> Int32).self)(-8, 2)
}
#endif

// The executable is a thin shell over the libraries: run the command line, exit with its status.
MeridianCommandLine.exit(MeridianCommandLine.run(Array(CommandLine.arguments.dropFirst())))
