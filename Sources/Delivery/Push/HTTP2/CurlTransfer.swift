import CCurl
import CShims.Curl
import CurlSupport

/// One easy handle with the header list and response sink it points at; frees all three.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    /// Push services answer a few hundred bytes; a misbehaving relay must not make us buffer without bound.
    let sink = CurlResponseSink(maxBodyBytes: 1 << 20)
    private var headerList: UnsafeMutablePointer<curl_slist>?

    private init(easy: UnsafeMutableRawPointer) { self.easy = easy }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
    }

    static func make(_ request: HTTPRequest, configuration: HTTP2Client.Configuration) -> Result<CurlTransfer, TransportError> {
        guard let easy = curl_easy_init() else {
            return .failure(TransportError(function: "curl_easy_init", code: -1, message: "no easy handle"))
        }
        let transfer = CurlTransfer(easy: easy)
        let failure = transfer.configure(request, configuration: configuration)
        if let failure { return .failure(failure) }
        return .success(transfer)
    }

    private func configure(_ request: HTTPRequest, configuration: HTTP2Client.Configuration) -> TransportError? {
        let lowerURL = request.url.lowercased()
        let version: Int
        if lowerURL.hasPrefix("https://") {
            // HTTP/2 through ALPN, HTTP/1.1 if the server offers only that.
            version = pn_http_version_2tls()
        } else if configuration.cleartextHTTP2 {
            version = pn_http_version_2_prior_knowledge()
        } else {
            version = pn_http_version_1_1()
        }
        for header in request.headers where !header.name.contains(where: \.isNewline) && !header.value.contains(where: \.isNewline) {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        // An HTTP/1.1 POST would otherwise wait for "100 Continue" on bodies over 1 KiB.
        headerList = curl_slist_append(headerList, "Expect:")
        // Unmanaged: the sink is owned by this transfer, which outlives the easy handle's use
        // (the handle is removed from the multi handle before the transfer is released).
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let steps: [(String, () -> CURLcode)] = [
            ("CURLOPT_URL", { pn_curl_easy_setopt_string(self.easy, CURLOPT_URL, request.url) }),
            // Only http and https, whatever a URL says (no file://, no redirects followed).
            ("CURLOPT_PROTOCOLS_STR", { pn_curl_easy_setopt_string(self.easy, CURLOPT_PROTOCOLS_STR, "http,https") }),
            // Signals are process-wide; libcurl must not use them (alarm-based DNS timeouts) in a threaded server.
            ("CURLOPT_NOSIGNAL", { pn_curl_easy_setopt_long(self.easy, CURLOPT_NOSIGNAL, 1) }),
            ("CURLOPT_HTTP_VERSION", { pn_curl_easy_setopt_long(self.easy, CURLOPT_HTTP_VERSION, version) }),
            ("CURLOPT_PIPEWAIT", { pn_curl_easy_setopt_long(self.easy, CURLOPT_PIPEWAIT, 1) }),
            ("CURLOPT_TIMEOUT_MS", { pn_curl_easy_setopt_long(self.easy, CURLOPT_TIMEOUT_MS, configuration.timeoutMillis) }),
            ("CURLOPT_POST", { pn_curl_easy_setopt_long(self.easy, CURLOPT_POST, 1) }),
            ("CURLOPT_POSTFIELDSIZE", { pn_curl_easy_setopt_long(self.easy, CURLOPT_POSTFIELDSIZE, request.body.count) }),
            ("CURLOPT_COPYPOSTFIELDS", {
                // COPYPOSTFIELDS copies the bytes now, so the array may go away after the call.
                var body = request.body
                if body.isEmpty { body = [0] }
                return body.withUnsafeMutableBytes { pn_curl_easy_setopt_pointer(self.easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
            }),
            ("CURLOPT_HTTPHEADER", { pn_curl_easy_setopt_slist(self.easy, CURLOPT_HTTPHEADER, self.headerList) }),
            ("CURLOPT_WRITEFUNCTION", { pn_curl_easy_setopt_callback(self.easy, CURLOPT_WRITEFUNCTION, curlWriteBody) }),
            ("CURLOPT_WRITEDATA", { pn_curl_easy_setopt_pointer(self.easy, CURLOPT_WRITEDATA, context) }),
            ("CURLOPT_HEADERFUNCTION", { pn_curl_easy_setopt_callback(self.easy, CURLOPT_HEADERFUNCTION, curlHeaderLine) }),
            ("CURLOPT_HEADERDATA", { pn_curl_easy_setopt_pointer(self.easy, CURLOPT_HEADERDATA, context) }),
            ("CURLOPT_CAINFO_BLOB", {
                guard let bundle = configuration.caBundle else { return CURLE_OK }
                // libcurl copies the blob (CURL_BLOB_COPY in the shim).
                return bundle.withUnsafeBytes { pn_curl_easy_setopt_blob(self.easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
            }),
        ]
        for (option, step) in steps {
            let code = step()
            if code != CURLE_OK {
                return TransportError(function: "curl_easy_setopt(\(option))", code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
            }
        }
        return nil
    }
}
