import Foundation

/// What libcurl hands back for one GET, filled by the callbacks below.
///
/// Lives only during `ProviderHTTPClient.get`, which owns it and outlives every callback: it is
/// passed to libcurl as `Unmanaged.passUnretained(self).toOpaque()`, and the handle's callbacks
/// are cleared (`curl_easy_reset`) before the call returns.
final class FetchSink {
    let maxBodyBytes: Int
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// Set when the body grew past `maxBodyBytes` and the transfer was aborted.
    var overflowed = false

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }
}

/// `CURLOPT_WRITEFUNCTION`: appends body bytes (decoded, when the answer was compressed).
/// Returning less than given aborts the transfer, which is what a body past the bound does.
func fetchWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<FetchSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard sink.body.count + length <= sink.maxBodyBytes else {
        sink.overflowed = true
        return 0
    }
    if let data, length > 0 {
        // Unsafe pointer: libcurl guarantees `length` readable bytes at `data` during the call.
        sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    }
    return length
}

/// `CURLOPT_HEADERFUNCTION`: called once per header line, status line included.
func fetchHeaderLine(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<FetchSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    // Unsafe pointer: libcurl guarantees `length` readable bytes at `data` during the call.
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        // A new status line (after a 100 Continue, say): the headers before it were not the answer's.
        sink.headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if !name.isEmpty, sink.headers.count < 100 { sink.headers[name] = value }
    }
    return length
}
