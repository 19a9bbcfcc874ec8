import Foundation

/// What libcurl hands back for one transfer, filled by `curlWriteBody` and `curlHeaderLine`:
/// the outgoing requests of Delivery (pushes, webhooks) and of SignInProviders (JWKS, Graph)
/// read their answers through it.
///
/// Lives only while its transfer runs, owned by the caller, who outlives every callback: it is
/// passed to libcurl as `Unmanaged.passUnretained(sink).toOpaque()`, and the handle's callbacks
/// are cleared or the handle removed before the caller returns.
public final class CurlResponseSink {
    /// A body larger than this aborts the transfer: a misbehaving server must not make us
    /// buffer without bound.
    public let maxBodyBytes: Int
    /// Header names lower-cased; the last value of a repeated header wins; at most 100.
    public var headers: [String: String] = [:]
    public var body: [UInt8] = []
    /// Set when the body grew past `maxBodyBytes` and the transfer was aborted.
    public var overflowed = false

    public init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }
}

/// `CURLOPT_WRITEFUNCTION` with a `CurlResponseSink` as `CURLOPT_WRITEDATA`: appends body bytes
/// (decoded, when the answer was compressed). Returning less than given aborts the transfer,
/// which is what a body past the bound does.
public func curlWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue()
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

/// `CURLOPT_HEADERFUNCTION` with a `CurlResponseSink` as `CURLOPT_HEADERDATA`: called once per
/// header line, status line included.
public func curlHeaderLine(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<CurlResponseSink>.fromOpaque(context).takeUnretainedValue()
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
