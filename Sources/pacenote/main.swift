// The `pacenote` command: read the command line and environment, then run one command.
// Everything with logic lives in the other files of this folder (C callbacks must not be
// written in main.swift, see SWIFT-LINUX-NOTES.md).
import Foundation

exit(PacenoteCommand.run(Array(CommandLine.arguments.dropFirst())))
