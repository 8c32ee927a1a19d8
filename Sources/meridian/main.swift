import MeridianCLI

// The executable is a thin shell over the libraries: run the command line, exit with its status.
MeridianCommandLine.exit(MeridianCommandLine.run(Array(CommandLine.arguments.dropFirst())))
