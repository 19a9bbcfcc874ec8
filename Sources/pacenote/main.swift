// The `pacenote` command: read the command line and environment, then run one command.
// Everything with logic lives in the other files of this folder (C callbacks must not be
// written in main.swift, see SWIFT-LINUX-NOTES.md).
import Foundation

// What this process creates is for its user only (the data directory, the database and its
// WAL, backups, SQLite's temporary files): those modes are also set explicitly where the files
// are made (PrivateFiles); the umask covers anything else.
umask(0o077)
exit(PacenoteCommand.run(Array(CommandLine.arguments.dropFirst())))
