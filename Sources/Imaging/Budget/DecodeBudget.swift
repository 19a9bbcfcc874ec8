import CVips
import Glibc

/// One server's memory for decoding pictures (API.md "Profile pictures": eight uploads at
/// once, valid or hostile, raise the peak resident memory by at most 256 MiB): a counting
/// semaphore of bytes. Each decode reserves what `DecodeCost` says it takes and waits, first
/// come first served, until that fits beside the decodes running; a reservation larger than
/// the whole budget runs alone. After a large decode the C heap is trimmed, so the memory
/// goes back to the system instead of staying in malloc's free lists.
///
/// Why a semaphore and not a child process with a memory limit: once `ImageHeader` has
/// checked the coded frames against their headers and bounded the decoded form (160 MB), what
/// libvips and libheif allocate follows from the header (measured: BENCHMARKS.md "Picture
/// memory"), so an estimate holds; a process per upload would cost a fork and a libvips start
/// per picture and move the renditions through a pipe, for a limit the estimate already keeps.
public final class DecodeBudget: @unchecked Sendable {
    /// Bytes of decoding that may run at once.
    public let capacity: Int
    /// A reservation at least this large trims the heap when it ends.
    static let trimThreshold = 8 * 1024 * 1024

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`.
    private var reserved = 0
    private var nextTicket = 0
    private var serving = 0
    private var highWater = 0

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Runs `body` once `bytes` (clamped to the capacity) are reserved, and gives them back after.
    public func withReservation<T, E: Error>(_ bytes: Int, _ body: () throws(E) -> T) throws(E) -> T {
        let amount = min(max(bytes, 0), capacity)
        reserve(amount)
        defer { release(amount) }
        return try body()
    }

    /// The most reserved at once since the budget was made (for tests).
    public var peakReserved: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return highWater
    }

    private func reserve(_ amount: Int) {
        pthread_mutex_lock(mutex)
        let ticket = nextTicket
        nextTicket += 1
        // In order of arrival: a large decode is not overtaken for ever by a stream of small ones.
        while ticket != serving || reserved + amount > capacity {
            pthread_cond_wait(condition, mutex)
        }
        reserved += amount
        highWater = max(highWater, reserved)
        serving += 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    private func release(_ amount: Int) {
        pthread_mutex_lock(mutex)
        reserved -= amount
        let idle = reserved == 0
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        // glibc keeps freed memory of its arenas for reuse; after a large decode it is handed
        // back, so the resident size returns to what it was (API.md: within 64 MiB in 10 s).
        if amount >= Self.trimThreshold || idle { pn_heap_trim() }
    }
}
