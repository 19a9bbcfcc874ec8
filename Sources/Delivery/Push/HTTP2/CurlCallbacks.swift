import CCurl
import Foundation

/// What libcurl hands back for one transfer, filled by the callbacks below.
///
/// Lives only during `CurlMulti.perform`, which owns it and outlives every callback: it is passed
/// to libcurl as `Unmanaged.passUnretained(self).toOpaque()` and the easy handle is removed from
/// the multi handle before `perform` returns.
final class ResponseSink {
    /// A response body larger than this aborts the transfer: push services answer a few hundred
    /// bytes, and a misbehaving relay must not make us buffer without bound.
    static let maxBodyBytes = 1 << 20

    var headers: [String: String] = [:]
    var body: [UInt8] = []
}

/// `CURLOPT_WRITEFUNCTION`: appends body bytes. Returning less than given aborts the transfer.
func curlWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard sink.body.count + length <= ResponseSink.maxBodyBytes else { return 0 }
    if let data, length > 0 {
        // Unsafe pointer: libcurl guarantees `length` readable bytes at `data` during the call.
        sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    }
    return length
}

/// `CURLOPT_HEADERFUNCTION`: called once per header line, status line included.
func curlHeaderLine(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
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
