import CMicroHTTPD
import CShims.MicroHTTPD

#if canImport(Glibc)
import Glibc
#endif

/// What `MHD_get_connection_info` answers about a connection, reachable from Swift.
///
/// The C function is variadic (`connection, info_type, ...`), and Swift imports no variadic C
/// function; for the kinds asked for here MHD reads no variadic argument, so CShims' wrapper
/// (`pn_mhd_get_connection_info`, Sources/CShims/include/microhttpd_shims.h) passes the fixed
/// arguments alone.
enum ConnectionInfo {
    /// The connection's socket; -1 if MHD has none for it.
    static func socket(of connection: OpaquePointer) -> Int32 {
        guard let info = pn_mhd_get_connection_info(connection, MHD_ConnectionInfoType.CONNECTION_INFO_CONNECTION_FD) else { return -1 }
        // MHD answers a pointer to the connection's `MHD_socket` (an int on POSIX).
        return UnsafeRawPointer(info).load(as: Int32.self)
    }

    /// The value our MHD_OPTION_NOTIFY_CONNECTION callback stored for this connection.
    static func socketContext(of connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        guard let info = pn_mhd_get_connection_info(connection, MHD_ConnectionInfoType.CONNECTION_INFO_SOCKET_CONTEXT) else { return nil }
        // MHD answers a pointer to the connection's `void *socket_context`.
        return UnsafeRawPointer(info).load(as: UnsafeMutableRawPointer?.self)
    }

    /// Whether MHD has received the whole head of the connection's current request
    /// (`CONNECTION_INFO_REQUEST_HEADER_SIZE` answers only from `HEADERS_RECEIVED` on, and not
    /// once the connection is closed).
    static func headReceived(_ connection: OpaquePointer) -> Bool {
        pn_mhd_get_connection_info(connection, MHD_ConnectionInfoType.CONNECTION_INFO_REQUEST_HEADER_SIZE) != nil
    }

    /// The peer's IP address as text, from the socket (`getpeername`); empty if unknown.
    /// Through the socket rather than `CONNECTION_INFO_CLIENT_ADDRESS` so that the address
    /// family and length come from the kernel, not from a pointer's assumed layout.
    static func clientAddress(of connection: OpaquePointer) -> String {
        clientAddress(of: socket(of: connection))
    }

    /// The peer's IP address of the socket `fd` as text; empty if unknown.
    static func clientAddress(of fd: Int32) -> String {
        guard fd >= 0 else { return "" }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard named == 0 else { return "" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        let written: UnsafePointer<CChar>? = withUnsafePointer(to: &storage) { pointer in
            // Unsafe pointers: sockaddr_storage is large enough for either family, and the
            // family field says which layout the kernel wrote.
            switch family {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    withUnsafePointer(to: address.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) }
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafePointer(to: address.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &text, socklen_t(text.count)) }
                }
            default:
                return nil
            }
        }
        guard written != nil else { return "" }
        let address = String(cString: text)
        // An IPv4 client on a dual-stack socket: count it as the IPv4 address it is.
        return address.hasPrefix("::ffff:") && address.contains(".") ? String(address.dropFirst(7)) : address
    }
}
