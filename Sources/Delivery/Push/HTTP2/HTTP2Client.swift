import CCurl
import CShims.Curl
import CurlSupport
import Synchronization

/// HTTP/2 POSTs over libcurl's multi interface, many at once on one connection per host.
///
/// A call adds one easy handle per request to a multi handle that lives as long as the client,
/// so its connection cache keeps the TLS connection (and HTTP/2 session) from one call to the
/// next: APNs wants long-lived connections, and a handshake per batch would dominate. With
/// `CURLMOPT_PIPELINING = CURLPIPE_MULTIPLEX` and `CURLOPT_PIPEWAIT` every transfer waits for
/// the first connection and then rides it as its own stream, instead of opening a connection
/// each (https://curl.se/libcurl/c/CURLOPT_PIPEWAIT.html). Calls are serialized by a mutex: a
/// libcurl multi handle must not be used from two threads at once ("Multi-threading", libcurl-thread(3)).
final class HTTP2Client: Sendable {
    struct Configuration: Sendable {
        /// Deadline of each request, connection included (`CURLOPT_TIMEOUT_MS`).
        var timeoutMillis = 10_000
        /// PEM CAs to trust instead of libcurl's default bundle (`CABundle`).
        var caBundle: [UInt8]?
        /// Speak HTTP/2 without upgrade on `http://` URLs (h2c "prior knowledge"), as APNs and FCM
        /// stand-ins do; off for a webhook relay, which may speak HTTP/1.1 only.
        var cleartextHTTP2 = true
        /// Requests in flight at once; the rest of a call wait for one of them to finish.
        /// HTTP/2 servers cap concurrent streams per connection (APNs at 1,000 once the
        /// connection is up, the stand-in too); past the cap libcurl parks transfers, and parked
        /// transfers were seen to wait about 5 s each for a slot (BENCHMARKS.md "Push
        /// delivery"), so a call never hands libcurl more than this.
        var maxInFlight = 500
    }

    private let configuration: Configuration
    private let multi: Mutex<CurlMulti>

    init(configuration: Configuration) throws(PushConfigurationError) {
        guard CurlGlobal.initialized else { throw .curl(function: "curl_global_init") }
        guard let handle = curl_multi_init() else { throw .curl(function: "curl_multi_init") }
        guard pn_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, pn_curlpipe_multiplex()) == CURLM_OK else {
            curl_multi_cleanup(handle)
            throw .curl(function: "curl_multi_setopt(CURLMOPT_PIPELINING)")
        }
        // libcurl opens no more than 100 streams on a connection by default and parks the rest;
        // let the server's own limit (APNs: 1,000) decide instead. `maxInFlight` stays below it.
        guard pn_curl_multi_setopt_long(handle, CURLMOPT_MAX_CONCURRENT_STREAMS, 1_000) == CURLM_OK else {
            curl_multi_cleanup(handle)
            throw .curl(function: "curl_multi_setopt(CURLMOPT_MAX_CONCURRENT_STREAMS)")
        }
        self.configuration = configuration
        multi = Mutex(CurlMulti(handle: handle))
    }

    /// Sends every request and waits for all answers; one result per request, in order.
    func perform(_ requests: [HTTPRequest]) -> [HTTPResult] {
        guard !requests.isEmpty else { return [] }
        return multi.withLock { multi in multi.perform(requests, configuration: configuration) }
    }
}

/// Owns a `CURLM*`. Not Sendable: only `HTTP2Client`'s mutex hands it out.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer

    init(handle: UnsafeMutableRawPointer) { self.handle = handle }

    deinit { curl_multi_cleanup(handle) }

    func perform(_ requests: [HTTPRequest], configuration: HTTP2Client.Configuration) -> [HTTPResult] {
        var results = [HTTPResult?](repeating: nil, count: requests.count)
        var transfers: [CurlTransfer] = []
        var byHandle: [UnsafeMutableRawPointer: Int] = [:]
        defer {
            for transfer in transfers {
                curl_multi_remove_handle(handle, transfer.easy)
            }
        }
        var next = 0
        var inFlight = 0
        /// Adds requests until `maxInFlight` are in flight or none is left.
        func admit() {
            while next < requests.count, inFlight < max(1, configuration.maxInFlight) {
                let index = next
                next += 1
                switch CurlTransfer.make(requests[index], configuration: configuration) {
                case .failure(let error):
                    results[index] = .failure(error)
                case .success(let transfer):
                    guard curl_multi_add_handle(handle, transfer.easy) == CURLM_OK else {
                        results[index] = .failure(TransportError(function: "curl_multi_add_handle", code: -1, message: "could not add the transfer"))
                        continue
                    }
                    transfers.append(transfer)
                    byHandle[transfer.easy] = index
                    inFlight += 1
                }
            }
        }
        admit()

        // Every transfer has a deadline (CURLOPT_TIMEOUT_MS), so `running` reaches 0.
        var running: Int32 = 1
        while running > 0 || next < requests.count {
            let code = curl_multi_perform(handle, &running)
            inFlight -= collectFinished(into: &results, byHandle: byHandle, transfers: transfers)
            guard code == CURLM_OK else {
                let error = TransportError(function: "curl_multi_perform", code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code)))
                for index in results.indices where results[index] == nil { results[index] = .failure(error) }
                break
            }
            if next < requests.count, inFlight < configuration.maxInFlight {
                admit()
                continue
            }
            if running > 0 {
                // Waits for socket activity or libcurl's next timeout, at most a second.
                _ = curl_multi_poll(handle, nil, 0, 1_000, nil)
            }
        }
        collectFinished(into: &results, byHandle: byHandle, transfers: transfers)
        return results.map {
            $0 ?? .failure(TransportError(function: "curl_multi_info_read", code: -1, message: "transfer ended without a result"))
        }
    }

    /// Records the transfers that ended; answers how many.
    @discardableResult
    private func collectFinished(into results: inout [HTTPResult?], byHandle: [UnsafeMutableRawPointer: Int], transfers: [CurlTransfer]) -> Int {
        var finished = 0
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE,
                  let easy = message.pointee.easy_handle,
                  let index = byHandle[easy]
            else { continue }
            let code = message.pointee.data.result
            guard let transfer = transfers.first(where: { $0.easy == easy }) else { continue }
            finished += 1
            curl_multi_remove_handle(handle, easy)
            if code == CURLE_OK {
                var status = 0
                _ = pn_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                results[index] = .success(HTTPResponse(status: status, headers: transfer.sink.headers, body: transfer.sink.body))
            } else {
                results[index] = .failure(TransportError(
                    function: "curl_multi_perform", code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code))))
            }
        }
        return finished
    }
}
