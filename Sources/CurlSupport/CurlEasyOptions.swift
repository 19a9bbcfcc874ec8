import CCurl
import CShims.Curl

/// `curl_global_init` once per process, before any handle. It is not thread-safe itself (with
/// Debian's libcurl 7.88, which has the "threadsafe" feature, a race is harmless; older ones
/// are not), and a Swift static is initialised exactly once, under a lock: every libcurl user
/// of this program (pushes, webhooks, mail, the sign-in providers) asks here, so the call is
/// made once whatever starts first.
public enum CurlGlobal {
    public static let initialized: Bool = pn_curl_global_init() == CURLE_OK
}

/// The options of one easy handle, set in order and stopped at the first libcurl refuses, whose
/// name the caller's error then carries. The settings every outgoing transfer of this program
/// shares live here once: no signals, the protocols allowed whatever a URL says, a deadline,
/// the answer collected into a `CurlResponseSink`, and the CA bundle with an operator's file.
public struct CurlEasyOptions {
    /// The first option libcurl refused.
    public struct Refusal: Error, Sendable {
        public let option: String
        public let code: CURLcode
        public var message: String { String(cString: curl_easy_strerror(code)) }
    }

    private let easy: UnsafeMutableRawPointer
    private var steps: [(option: String, set: () -> CURLcode)] = []

    public init(_ easy: UnsafeMutableRawPointer) { self.easy = easy }

    public mutating func string(_ name: String, _ option: CURLoption, _ value: String) {
        let easy = easy
        steps.append((name, { pn_curl_easy_setopt_string(easy, option, value) }))
    }

    public mutating func long(_ name: String, _ option: CURLoption, _ value: Int) {
        let easy = easy
        steps.append((name, { pn_curl_easy_setopt_long(easy, option, value) }))
    }

    /// A list the caller owns and frees after the transfer.
    public mutating func list(_ name: String, _ option: CURLoption, _ value: UnsafeMutablePointer<curl_slist>?) {
        let easy = easy
        steps.append((name, { pn_curl_easy_setopt_slist(easy, option, value) }))
    }

    public mutating func pointer(_ name: String, _ option: CURLoption, _ value: UnsafeMutableRawPointer?) {
        let easy = easy
        steps.append((name, { pn_curl_easy_setopt_pointer(easy, option, value) }))
    }

    public mutating func callback(_ name: String, _ option: CURLoption, _ value: pn_curl_data_callback) {
        let easy = easy
        steps.append((name, { pn_curl_easy_setopt_callback(easy, option, value) }))
    }

    /// Any step the named helpers do not cover (a copy of the body, say).
    public mutating func custom(_ name: String, _ set: @escaping (UnsafeMutableRawPointer) -> CURLcode) {
        let easy = easy
        steps.append((name, { set(easy) }))
    }

    /// What every transfer of this program sets: `url`; only `protocols` ("http,https",
    /// "smtp,smtps"), so no URL reaches file:// or the like; `timeoutMillis` for the whole
    /// transfer (DNS, connect, TLS, body); and no signals, which are process-wide and must not
    /// be libcurl's (alarm-based DNS timeouts) in a threaded server.
    public mutating func transfer(url: String, protocols: String, timeoutMillis: Int) {
        string("CURLOPT_URL", CURLOPT_URL, url)
        string("CURLOPT_PROTOCOLS_STR", CURLOPT_PROTOCOLS_STR, protocols)
        long("CURLOPT_NOSIGNAL", CURLOPT_NOSIGNAL, 1)
        long("CURLOPT_TIMEOUT_MS", CURLOPT_TIMEOUT_MS, timeoutMillis)
    }

    /// The answer's headers and body into `sink`, which must outlive the transfer (it is passed
    /// unretained; the caller resets or removes the handle before the sink goes).
    public mutating func collect(into sink: CurlResponseSink) {
        let context = Unmanaged.passUnretained(sink).toOpaque()
        callback("CURLOPT_WRITEFUNCTION", CURLOPT_WRITEFUNCTION, curlWriteBody)
        pointer("CURLOPT_WRITEDATA", CURLOPT_WRITEDATA, context)
        callback("CURLOPT_HEADERFUNCTION", CURLOPT_HEADERFUNCTION, curlHeaderLine)
        pointer("CURLOPT_HEADERDATA", CURLOPT_HEADERDATA, context)
    }

    /// The CAs to trust (`CABundle.load`); nil keeps libcurl's default bundle. libcurl copies
    /// the blob (CURL_BLOB_COPY in the shim).
    public mutating func trust(_ caBundle: [UInt8]?) {
        guard let caBundle else { return }
        custom("CURLOPT_CAINFO_BLOB") { easy in
            caBundle.withUnsafeBytes { pn_curl_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
        }
    }

    /// Sets every option in order; throws the first refusal.
    public func apply() throws(Refusal) {
        for (option, set) in steps {
            let code = set()
            if code != CURLE_OK { throw Refusal(option: option, code: code) }
        }
    }
}
