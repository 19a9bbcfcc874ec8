#if canImport(Glibc)
import Glibc
#endif

/// How many connections the daemon may hold, given the open-file limit.
///
/// Every connection is a descriptor. When accept(2) fails with EMFILE before MHD's own limit
/// is reached, MHD can neither serve nor refuse: the listening socket stays readable and new
/// connections wait in the backlog, from every address. So the limit MHD enforces must sit
/// below RLIMIT_NOFILE, leaving room for the database (a writer, readers, checkpointer, WAL and
/// shared-memory files), the log and MHD's own epoll and inter-thread descriptors.
enum ConnectionLimit {
    /// Descriptors kept for everything that is not a client connection.
    static let reserved = 128

    /// `configured`, lowered to the soft RLIMIT_NOFILE minus `reserved` (never below 16).
    static func effective(configured: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {  // rlim_t.max: RLIM_INFINITY
            return max(1, configured)
        }
        let available = Int(clamping: limit.rlim_cur) - reserved
        return max(1, min(configured, max(16, available)))
    }
}
