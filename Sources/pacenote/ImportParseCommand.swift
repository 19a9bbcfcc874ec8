import Foundation
import ParseImport
import SocialAPI

/// `pacenote import-parse DIR`: import a Parse export (API.md "Command line").
///
/// Progress and the first 1,000 skip and note lines go to stderr, the summary to stdout.
/// Exit 0 when every file was read to its end (skipped objects are expected), 1 when a
/// file stopped early or could not be read.
enum ImportParseCommand {
    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, flags: CommonOptions.flags.union(["batch-size", "following-depth"]))
        guard options.positional.count == 1 else { throw Options.UsageError(description: "import-parse takes one DIR") }
        var importOptions = ParseImporter.Options()
        importOptions.batchSize = try options.int("batch-size", default: importOptions.batchSize, range: 1...1_000_000)
        importOptions.followingDepth = try options.int("following-depth", default: importOptions.followingDepth, range: 0...100_000)
        let application = try Application(configuration: try CommonOptions.configuration(options), logger: try CommonOptions.logger(options))
        defer { application.close() }
        let importer = ParseImporter(database: application.database, directory: options.positional[0], options: importOptions) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        let report = try importer.run()
        print(report.summary)
        let required = ParseClass.allCases.filter { !$0.isOptional }
        return report.fileErrors.isEmpty && report.missingFiles.allSatisfy({ !required.contains($0) }) ? 0 : 1
    }
}
