#if canImport(Glibc)
import Glibc
#endif

/// Milliseconds of CLOCK_MONOTONIC: never jumps with the wall clock (deadlines, log rate limits).
public func monotonicMillis() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000 + Int64(ts.tv_nsec) / 1_000_000
}
