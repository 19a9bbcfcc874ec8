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
        var options = CurlEasyOptions(easy)
        options.transfer(url: request.url, protocols: "http,https", timeoutMillis: configuration.timeoutMillis)
        options.long("CURLOPT_HTTP_VERSION", CURLOPT_HTTP_VERSION, version)
        options.long("CURLOPT_PIPEWAIT", CURLOPT_PIPEWAIT, 1)
        options.long("CURLOPT_POST", CURLOPT_POST, 1)
        options.long("CURLOPT_POSTFIELDSIZE", CURLOPT_POSTFIELDSIZE, request.body.count)
        options.custom("CURLOPT_COPYPOSTFIELDS") { easy in
            // COPYPOSTFIELDS copies the bytes now, so the array may go away after the call.
            var body = request.body
            if body.isEmpty { body = [0] }
            return body.withUnsafeMutableBytes { pn_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
        }
        options.list("CURLOPT_HTTPHEADER", CURLOPT_HTTPHEADER, headerList)
        // The sink is owned by this transfer, which outlives the easy handle's use (the handle is
        // removed from the multi handle before the transfer is released).
        options.collect(into: sink)
        options.trust(configuration.caBundle)
        do {
            try options.apply()
        } catch {
            return TransportError(function: "curl_easy_setopt(\(error.option))", code: Int(error.code.rawValue), message: error.message)
        }
        return nil
    }
}
