#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit (RLIMIT_NOFILE).
enum OpenFileLimit {
    /// Raises the soft limit to the hard one, as servers do: each connection is a descriptor,
    /// and a soft limit of 1,024 (a common default) would cap the server below its
    /// `maxConnections`. Answers the soft limit in force afterwards.
    @discardableResult
    static func raiseToHardLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
