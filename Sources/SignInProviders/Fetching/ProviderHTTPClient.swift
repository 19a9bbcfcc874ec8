import CurlSupport
import CCurl
import CShims.Curl
import Foundation
import Synchronization
import Telemetry

/// An answer from a provider: status, header fields (names lower-cased; a repeated field keeps
/// its last value) and the body, at most `maxResponseBytes` of it.
public struct ProviderResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A GET that ended without an answer. The description names what happened (libcurl's text for
/// its code, `curl_easy_strerror`), never the URL: Facebook's URLs carry the user's token and
/// the app secret.
public struct ProviderFetchError: SafelyDescribedError, Equatable {
    public enum Kind: String, Sendable {
        /// The bound passed (connecting, TLS, or the answer itself).
        case timeout
        /// DNS, connection refused, TLS refused (an untrusted certificate), a reset.
        case transport
        /// The body passed `maxResponseBytes`.
        case tooLarge
        /// Not an `https://` URL (nor `http://` to loopback): never sent.
        case refusedURL
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

/// HTTPS GETs of small JSON documents from sign-in providers (their JWKS, Facebook's Graph API)
/// over libcurl's easy interface, each bounded in time and size.
///
/// `get` blocks the calling thread for at most `timeoutMillis` (or the shorter budget it is
/// given): libcurl's `CURLOPT_TIMEOUT_MS` covers DNS (Debian's libcurl resolves on a thread of its
/// own, "AsynchDNS"), connecting, TLS and the transfer, and `CURLOPT_NOSIGNAL` keeps it off
/// process-wide signals. TLS is verified (peer and host name) against the system's CAs plus
/// `extraCAFile`; redirects are not followed; only `https`, or `http` to loopback, is spoken.
/// Thread-safe: each call takes an easy handle of its own from a small pool, which keeps the
/// handles' connections alive from one call to the next (Graph's TLS connection is reused).
public final class ProviderHTTPClient: Sendable {
    public struct Configuration: Sendable {
        /// The longest a call waits, everything included (3 s; `SignInProviderSettings.timeoutMillis`).
        public var timeoutMillis: Int
        /// The longest connecting (TCP and TLS) may take, within `timeoutMillis`.
        public var connectTimeoutMillis: Int
        /// A larger answer is abandoned (`.tooLarge`): JWKS documents are a few KiB.
        public var maxResponseBytes: Int
        /// PEM CAs trusted besides the system's (`--provider-ca-file`; tests' stand-ins).
        public var extraCAFile: String?

        public init(timeoutMillis: Int = 3_000, connectTimeoutMillis: Int = 2_000, maxResponseBytes: Int = 1 << 20, extraCAFile: String? = nil) {
            self.timeoutMillis = timeoutMillis
            self.connectTimeoutMillis = connectTimeoutMillis
            self.maxResponseBytes = maxResponseBytes
            self.extraCAFile = extraCAFile
        }
    }

    public let timeoutMillis: Int
    private let connectTimeoutMillis: Int
    private let maxResponseBytes: Int
    private let caBundle: [UInt8]?
    private let pool = Mutex<[EasyHandle]>([])
    private static let maxPooledHandles = 8

    /// - Throws: `ProviderConfigurationError` for a bound out of range, an unreadable CA file
    ///   or one with no certificate, or libcurl failing to start.
    public init(_ configuration: Configuration = Configuration()) throws(ProviderConfigurationError) {
        guard (1...120_000).contains(configuration.timeoutMillis) else {
            throw .outOfRange(setting: "provider timeout", reason: "must be between 1 ms and 120 s")
        }
        guard configuration.connectTimeoutMillis > 0 else {
            throw .outOfRange(setting: "connect timeout", reason: "must be positive")
        }
        guard (1...(64 << 20)).contains(configuration.maxResponseBytes) else {
            throw .outOfRange(setting: "max response bytes", reason: "must be between 1 byte and 64 MiB")
        }
        guard CurlGlobal.initialized else { throw .curl(function: "curl_global_init") }
        timeoutMillis = configuration.timeoutMillis
        connectTimeoutMillis = min(configuration.connectTimeoutMillis, configuration.timeoutMillis)
        maxResponseBytes = configuration.maxResponseBytes
        caBundle = try ProviderConfigurationError.caBundle(configuration.extraCAFile)
    }

    deinit {
        for handle in pool.withLock({ $0 }) { curl_easy_cleanup(handle.pointer) }
    }

    /// GETs `url` and waits for the whole answer, at most `min(timeoutMillis, budgetMillis)`.
    /// Any status is an answer; what it means is the caller's to judge.
    public func get(_ url: String, headers: [(name: String, value: String)] = [], budgetMillis: Int? = nil) -> Result<ProviderResponse, ProviderFetchError> {
        guard let scheme = ProviderURL.scheme(of: url) else {
            return .failure(ProviderFetchError(kind: .refusedURL, message: "not an https:// URL (nor http:// to loopback)"))
        }
        let bound = min(timeoutMillis, budgetMillis ?? timeoutMillis)
        guard bound > 0 else { return .failure(ProviderFetchError(kind: .timeout, message: "no time left")) }

        let handle: EasyHandle
        if let pooled = pool.withLock({ $0.popLast() }) {
            handle = pooled
        } else if let fresh = curl_easy_init() {
            handle = EasyHandle(pointer: fresh)
        } else {
            return .failure(ProviderFetchError(kind: .transport, message: "curl_easy_init failed"))
        }
        let easy = handle.pointer
        let sink = CurlResponseSink(maxBodyBytes: maxResponseBytes)
        var headerList: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Accept: application/json")
        for header in headers where !header.name.contains(where: \.isNewline) && !header.value.contains(where: \.isNewline) {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        defer {
            // Clears every option (callbacks and the sink pointer among them) but keeps the
            // handle's live connections and DNS cache for the next call.
            curl_easy_reset(easy)
            curl_slist_free_all(headerList)
            let kept = pool.withLock { pool in
                guard pool.count < Self.maxPooledHandles else { return false }
                pool.append(handle)
                return true
            }
            if !kept { curl_easy_cleanup(easy) }
        }

        var options = CurlEasyOptions(easy)
        options.transfer(url: url, protocols: scheme, timeoutMillis: bound)
        options.long("CURLOPT_HTTPGET", CURLOPT_HTTPGET, 1)
        options.long("CURLOPT_FOLLOWLOCATION", CURLOPT_FOLLOWLOCATION, 0)
        options.long("CURLOPT_CONNECTTIMEOUT_MS", CURLOPT_CONNECTTIMEOUT_MS, min(connectTimeoutMillis, bound))
        options.long("CURLOPT_SSL_VERIFYPEER", CURLOPT_SSL_VERIFYPEER, 1)
        options.long("CURLOPT_SSL_VERIFYHOST", CURLOPT_SSL_VERIFYHOST, 2)
        // A declared Content-Length past the bound is refused before the body is read.
        options.long("CURLOPT_MAXFILESIZE", CURLOPT_MAXFILESIZE, maxResponseBytes)
        // Every encoding libcurl decodes; the bound applies to the decoded bytes.
        options.string("CURLOPT_ACCEPT_ENCODING", CURLOPT_ACCEPT_ENCODING, "")
        options.string("CURLOPT_USERAGENT", CURLOPT_USERAGENT, "pacenote")
        options.list("CURLOPT_HTTPHEADER", CURLOPT_HTTPHEADER, headerList)
        // `sink` outlives the transfer (curl_easy_perform returns before this function does, and
        // the reset above drops the pointer).
        options.collect(into: sink)
        options.trust(caBundle)
        do {
            try options.apply()
        } catch {
            return .failure(ProviderFetchError(kind: .transport, message: "curl_easy_setopt(\(error.option)): \(error.message)"))
        }

        let code = curl_easy_perform(easy)
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(ProviderFetchError(kind: .tooLarge, message: "the answer passed \(maxResponseBytes) bytes"))
        }
        guard code == CURLE_OK else {
            let kind: ProviderFetchError.Kind = code == CURLE_OPERATION_TIMEDOUT ? .timeout : .transport
            return .failure(ProviderFetchError(kind: kind, message: String(cString: curl_easy_strerror(code))))
        }
        var status = 0
        _ = pn_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(ProviderResponse(status: status, headers: sink.headers, body: sink.body))
    }
}

/// A `CURL*` kept in the pool. Sendable: a handle is used by one thread at a time, the one that
/// took it out of the pool's mutex (libcurl-thread(3): a handle may move between threads).
private struct EasyHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}


