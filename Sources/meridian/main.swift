import MeridianCLI
import MeridianViewer

// The executable is a thin shell: parse, run, exit with the command's status.
MeridianCommandLine.exit(MeridianCommandLine.run(Array(CommandLine.arguments.dropFirst())))
