#if canImport(Glibc)
import Glibc
#endif

/// Milliseconds of CLOCK_MONOTONIC: never jumps with the wall clock (deadlines, log rate limits).
public func monotonicMillis() -> Int64 {
    let ts = monotonicTime()
    return Int64(ts.tv_sec) * 1_000 + Int64(ts.tv_nsec) / 1_000_000
}

/// Seconds of CLOCK_MONOTONIC with its full resolution (how long an import's phase took).
public func monotonicSeconds() -> Double {
    let ts = monotonicTime()
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

private func monotonicTime() -> timespec {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts
}
