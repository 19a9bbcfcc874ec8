/// Checks an operator-given base URL and drops a trailing slash, so paths can be appended.
func normalizedBaseURL(_ url: String) throws(PushConfigurationError) -> String {
    let lower = url.lowercased()
    guard lower.hasPrefix("https://") || lower.hasPrefix("http://"),
          !url.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }),
          url.split(separator: "/", omittingEmptySubsequences: true).count >= 2
    else { throw .invalidURL(url) }
    var result = url
    while result.hasSuffix("/") { result.removeLast() }
    return result
}
