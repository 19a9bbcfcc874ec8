/// Gives every 200 JSON or HTML answer to a GET or HEAD a strong `ETag` made from its body
/// (HTML: the public web's pages, which are the same for everyone who asks), answers 304
/// when the request's `If-None-Match` names it, and says how it may be cached.
///
/// The body is the one the handler already wrote: it is hashed once (`EntityTag.strong(of:)`,
/// XXH64), never rendered again, so a 304 costs the handler's work minus the bytes on the
/// wire. Left alone: answers other than 200 (errors never carry an ETag), streamed bodies (the
/// data export: its bytes do not exist yet), bodies that are neither JSON nor HTML, and answers that already
/// carry an `ETag` (pictures, whose tag is their name). A HEAD runs its GET's handler, so it gets
/// the same tag and the same 304.
///
/// `Cache-Control`, unless the handler set one: `private, no-cache` when the request has an
/// identity (the context's, so add this after authentication), else `no-cache`. `no-cache`
/// makes every cache ask again before each use, and since the tag is the body's, a cached copy
/// is only ever confirmed by the server for exactly those bytes, whoever asks: safe even where a
/// URL answers differently per caller.
///
/// The 304 keeps the 200's headers but `Content-Type` (RFC 9110 15.4.5), and has no body.
public struct ConditionalGetMiddleware<Identity: Sendable>: Middleware {
    /// Paths (as prefixes) left alone: another API's routes whose answer depends on headers
    /// this middleware cannot see (the Parse facade's session header).
    let skippedPrefixes: [String]

    public init(skippingPrefixes: [String] = []) {
        self.skippedPrefixes = skippingPrefixes
    }

    public func handle(
        _ request: Request, context: RequestContext<Identity>,
        next: (Request, RequestContext<Identity>) -> Response
    ) -> Response {
        var response = next(request, context)
        guard request.method == "GET" || request.method == "HEAD", response.status == 200, response.stream == nil,
              let type = response.header("Content-Type"), type.hasPrefix("application/json") || type.hasPrefix("text/html"),
              response.header("ETag") == nil,
              !skippedPrefixes.contains(where: { request.path == $0 || request.path.hasPrefix($0 + "/") }) else { return response }
        let etag = EntityTag.strong(of: response.body)
        response.headers.append(("ETag", etag))
        if response.header("Cache-Control") == nil {
            response.headers.append(("Cache-Control", context.identity == nil ? "no-cache" : "private, no-cache"))
        }
        let conditions = request.headers.pairs.filter { asciiCaseInsensitiveEquals($0.0, "If-None-Match") }.map(\.1)
        guard !conditions.isEmpty, EntityTag.noneMatch(conditions, etag) else { return response }
        return Response(status: 304, headers: response.headers.filter { !asciiCaseInsensitiveEquals($0.0, "Content-Type") })
    }
}
