/// Limits and sizes of the HTTP server. Defaults match API.md.
public struct ServerConfiguration: Sendable {
    /// IPv4 or IPv6 literal to bind.
    public var host: String = "127.0.0.1"
    /// 0 picks a free port; read `HTTPServer.boundPort` after `start()`.
    public var port: Int = 8080
    /// libmicrohttpd's internal thread pool size (serving threads).
    public var threads: Int = 4
    /// Threads of the offload pool (routes whose `RoutePolicy.pool` is `.offload`, e.g. bcrypt).
    public var offloadThreads: Int = 2
    /// Jobs that may wait for an offload thread; beyond it requests get 503 `unavailable` with `Retry-After`.
    public var offloadQueueCapacity: Int = 256
    /// Threads of the blocking pool (routes whose `RoutePolicy.pool` is `.blocking`, e.g. database
    /// writes). Its queue holds one job per connection, so it never refuses one.
    public var blockingThreads: Int = 32
    /// Threads of the media pool (routes whose `RoutePolicy.pool` is `.media`: image decoding).
    public var mediaThreads: Int = 2
    /// Jobs that may wait for a media thread; beyond it requests get 503 `unavailable`.
    public var mediaQueueCapacity: Int = 8
    /// Largest request body; a larger one is 413 `payload_too_large`. A route may declare its
    /// own (`RoutePolicy.maxBodyBytes`).
    public var maxBodyBytes: Int = 65_536
    /// Requests at once whose route allows a body larger than `maxBodyBytes` (each may hold
    /// its whole body in memory until answered); one more is 503 `unavailable` before its body
    /// is read. Bounds what a burst of uploads can take: 8 x 10 MiB by default.
    public var maxLargeBodies: Int = 8
    /// Of those, how many one `BodyHolder` (the caller the `HeadCheck` named) may have at once;
    /// one more is 429 `rate_limited` before its body is read, so one account cannot take the
    /// slots every other account's uploads need.
    public var maxLargeBodiesPerHolder: Int = 2
    /// Milliseconds the body of a request whose route takes more than `maxBodyBytes`
    /// (`RoutePolicy.maxBodyBytes`) has to arrive whole, from its request head; a later one is answered 408 `request_timeout` and its connection closed, so a body
    /// trickling in cannot hold one of `maxLargeBodies` for longer.
    public var bodyTimeoutMillis: Int64 = 30_000
    /// Largest request line (414) and header block (431).
    public var maxHeaderBytes: Int = 16_384
    /// Idle seconds before libmicrohttpd closes a connection.
    public var connectionTimeoutSeconds: Int = 30
    /// Concurrent connections libmicrohttpd accepts, at most: `start()` lowers it to what the
    /// process's open-file limit (RLIMIT_NOFILE) leaves room for.
    public var maxConnections: Int = 1024
    /// Concurrent connections from one IP address (MHD_OPTION_PER_IP_CONNECTION_LIMIT); one
    /// more is closed at once. Keeps one address from taking every connection.
    public var maxConnectionsPerAddress: Int = 64
    /// Milliseconds a connection has to deliver a whole request head (request line and
    /// headers), from its accept or from the previous response; a later one is closed.
    public var headerTimeoutMillis: Int64 = 10_000

    public init() {}
}

/// A failed C call while starting or running the server; names the function and keeps errno.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// The C function that failed, e.g. "bind" or "MHD_start_daemon_va".
    public let function: String
    /// errno right after the call (0 when the library does not set it).
    public let errno: Int32
    /// Extra context without secrets, e.g. the address.
    public let detail: String

    public init(function: String, errno: Int32, detail: String = "") {
        self.function = function
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        "\(function) failed (errno \(errno))" + (detail.isEmpty ? "" : ": \(detail)")
    }
}
