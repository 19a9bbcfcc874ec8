import ParseREST

/// The Parse facade's flags of API.md "Command line" (Public web and Parse facade): the Parse
/// REST API is on with `--parse-app-id`, and the keys are checked when they are given.
enum ParseOptions {
    static let flags: [CommandSpec.Flag] = [
        .init("parse-app-id", "ID", "serve the Parse REST API under /parse/ and /1/ for apps with this application id (off without it)"),
        .init("parse-client-key", "KEY", "the client key Parse SDK apps send (X-Parse-Client-Key); unchecked without it"),
        .init("parse-rest-key", "KEY", "the REST API key Parse REST clients send (X-Parse-REST-API-Key); unchecked without it"),
    ]

    /// The keys, or nil when the facade is off; a key without an application id, or an empty
    /// one, stops `serve` with its reason.
    static func keys(_ options: Options) throws -> ParseKeys? {
        let clientKey = options.string("parse-client-key")
        let restKey = options.string("parse-rest-key")
        guard let applicationID = options.string("parse-app-id") else {
            if clientKey != nil || restKey != nil {
                throw Options.UsageError(description: "--parse-client-key and --parse-rest-key need --parse-app-id")
            }
            return nil
        }
        for (flag, value) in [("parse-app-id", applicationID), ("parse-client-key", clientKey), ("parse-rest-key", restKey)] where value?.isEmpty == true {
            throw Options.UsageError(description: "--\(flag) must not be empty")
        }
        return ParseKeys(applicationID: applicationID, clientKey: clientKey, restAPIKey: restKey)
    }
}
