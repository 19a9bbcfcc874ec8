import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fixed pool of pthreads with a bounded FIFO queue, for handlers that must never hold a
/// libmicrohttpd serving thread: CPU-heavy ones (bcrypt; those threads run at nice 10 so
/// serving threads win the CPU when both are busy) and blocking ones (database writes).
final class OffloadPool: Sendable {
    typealias Job = @Sendable () -> Void

    struct Queue {
        var jobs: [Job?] = []
        var head = 0
        var closed = false
        /// Jobs queued or running, read through `outstanding` (the `/metrics` gauges of both
        /// pools). Nothing waits for it to reach zero: `shutdown` lets the queued jobs finish by
        /// joining the threads.
        var outstanding = 0

        var waiting: Int { jobs.count - head }
    }

    let queue = Mutex(Queue())
    /// Counts queued jobs (plus one wake-up per thread at shutdown).
    let available = DispatchSemaphore(value: 0)
    let capacity: Int
    let threadCount: Int
    let threads = Mutex<[pthread_t]>([])

    /// The threads' nice value (setpriority(2)): above 0 yields to the serving threads.
    let niceness: Int32

    init(threads: Int, capacity: Int, niceness: Int32) {
        threadCount = max(1, threads)
        self.capacity = max(1, capacity)
        self.niceness = niceness
    }

    /// Starts the worker threads; throws naming `pthread_create` on failure.
    func start() throws(HTTPServerError) {
        for _ in 0..<threadCount {
            var thread = pthread_t()
            // Unmanaged: the worker takes this retain and releases it when its loop ends.
            let context = Unmanaged.passRetained(self).toOpaque()
            let rc = pthread_create(&thread, nil, { raw in
                guard let raw else { return nil }
                let pool = Unmanaged<OffloadPool>.fromOpaque(raw).takeRetainedValue()
                pool.workerLoop()
                return nil
            }, context)
            guard rc == 0 else {
                Unmanaged<OffloadPool>.fromOpaque(context).release()
                throw HTTPServerError(function: "pthread_create", errno: rc)
            }
            threads.withLock { $0.append(thread) }
        }
    }

    /// Queues `job`; false when the queue is full or closed (the caller answers 503).
    func trySubmit(_ job: @escaping Job) -> Bool {
        let accepted = queue.withLock { q in
            guard !q.closed, q.waiting < capacity else { return false }
            q.jobs.append(job)
            q.outstanding += 1
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    private func workerLoop() {
        // On Linux, PRIO_PROCESS with who = 0 applies to the calling thread only (nice is a
        // per-thread attribute under NPTL; see setpriority(2), BUGS), which is what we want.
        if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
        while true {
            available.wait()
            let job: Job? = queue.withLock { q in
                guard q.head < q.jobs.count else { return nil }
                let job = q.jobs[q.head]
                q.jobs[q.head] = nil
                q.head += 1
                // Compact now and then so the array does not grow without bound.
                if q.head > 64 && q.head * 2 > q.jobs.count {
                    q.jobs.removeFirst(q.head)
                    q.head = 0
                }
                return job
            }
            guard let job else {
                // No job behind this wake-up: shutdown.
                if queue.withLock({ $0.closed }) { return }
                continue
            }
            job()
            queue.withLock { $0.outstanding -= 1 }
        }
    }

    /// Number of jobs queued or running.
    var outstanding: Int { queue.withLock { $0.outstanding } }

    /// Refuses new jobs, lets queued ones finish, then joins the threads.
    func shutdown() {
        let alreadyClosed = queue.withLock { q in
            defer { q.closed = true }
            return q.closed
        }
        guard !alreadyClosed else { return }
        for _ in 0..<threadCount { available.signal() }
        for thread in threads.withLock({ $0 }) { pthread_join(thread, nil) }
    }
}
