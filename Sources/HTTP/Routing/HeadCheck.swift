/// Decides from a request's head alone, before a byte of its body is read, whether the body may
/// be read: for routes whose body may be larger than the server's limit
/// (`RoutePolicy.maxBodyBytes`), where reading it costs a slot of `maxLargeBodies`, up to
/// 10 MiB of memory and up to `bodyTimeoutMillis` of a connection. Without it anyone could
/// hold every slot with bodies that never end, and a check made after the body (the
/// middleware's) would come too late to free them.
///
/// HTTP knows no domain: the application implements it (SocialAPI's session check) and
/// registers it with `RouterBuilder.add(headCheck:)`. It runs on the serving thread that read
/// the head, with the route's policy in `context`; a thrown error is answered as the route
/// answers errors (the router's mapper, or its `ErrorRenderer`), with the connection closed.
public protocol HeadCheck<Identity>: Sendable {
    associatedtype Identity: Sendable

    /// Who the body is for, counted against `ServerConfiguration.maxLargeBodiesPerHolder`
    /// while it is read and handled; nil counts against nobody's (an open route). Throws to
    /// refuse the request without reading its body.
    func holder(of head: Request, context: RequestContext<Identity>) throws -> BodyHolder?
}

/// Whose large bodies are counted together (the signed-in caller's id, say): opaque to HTTP.
public struct BodyHolder: Sendable, Hashable {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }
}

/// What `HTTPResponder.admitBody(of:)` decided.
public enum BodyAdmission: Sendable {
    /// Read the body, counted against `holder` (nil: nobody's).
    case admit(holder: BodyHolder?)
    /// Answer this and close the connection; the body is never read.
    case refuse(Response)
}
