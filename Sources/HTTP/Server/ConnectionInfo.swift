import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#endif

/// `MHD_get_connection_info`, reachable from Swift.
/// (The client address kind, `CONNECTION_INFO_CLIENT_ADDRESS`, reads no variadic argument either.)
///
/// The C function is variadic (`connection, info_type, ...`), and Swift imports no variadic C
/// function. For the two kinds we ask for (the socket and the socket context) MHD reads no
/// variadic argument, so we call it through a non-variadic C function pointer taken with
/// dlsym. On x86-64 System V and AArch64 Linux a call with only the fixed arguments passes
/// them exactly as a variadic call would; the only difference is %al (the count of vector
/// registers a variadic callee may spill), which a callee built by GCC only tests against zero.
/// A tiny C target would avoid the cast, but the package layout is not ours to change here.
enum ConnectionInfo {
    typealias Function = @convention(c) (OpaquePointer?, UInt32) -> UnsafeRawPointer?

    /// Resolved once; nil only if libmicrohttpd lacked the symbol, which would not have linked.
    static let function: Function? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "MHD_get_connection_info") else { return nil }
        // unsafeBitCast: a C function pointer to a C function type of the same fixed parameters
        // (see above for why the variadic tail may be left out for these kinds).
        return unsafeBitCast(symbol, to: Function.self)
    }()

    /// The connection's socket; -1 if MHD has none for it.
    static func socket(of connection: OpaquePointer) -> Int32 {
        guard let info = function?(connection, MHD_ConnectionInfoType.CONNECTION_INFO_CONNECTION_FD.rawValue) else { return -1 }
        // MHD answers a pointer to the connection's `MHD_socket` (an int on POSIX).
        return info.load(as: Int32.self)
    }

    /// The value our MHD_OPTION_NOTIFY_CONNECTION callback stored for this connection.
    static func socketContext(of connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        guard let info = function?(connection, MHD_ConnectionInfoType.CONNECTION_INFO_SOCKET_CONTEXT.rawValue) else { return nil }
        // MHD answers a pointer to the connection's `void *socket_context`.
        return info.load(as: UnsafeMutableRawPointer?.self)
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
