extension ServerCore {
    /// The answer to a large body refused from its head.
    struct LargeBodyRefusal: Error {
        let action: UploadState.Action
    }

    /// Decides, from its head, whether the large body of `head` is read: the `HeadCheck` first
    /// (an anonymous caller never takes a slot), then the caller's own slots, then the
    /// server's. On success the request holds the lease until its completion callback.
    func admitLargeBody(_ head: Request) -> Result<LargeBodySlots.Lease, LargeBodyRefusal> {
        switch responder.admitBody(of: head) {
        case .refuse(var response):
            // Answered on the first call, so MHD reads none of the body and closes the
            // connection after the answer; the header says so to the client too.
            response.headers.append(("Connection", "close"))
            // No middleware sees it (the metrics' request counts): counted with the refusals.
            requestsRejected.increment()
            return .failure(LargeBodyRefusal(action: .queue(response)))
        case .admit(let holder):
            do throws(LargeBodySlots.Refusal) {
                return .success(try largeBodies.take(for: holder))
            } catch .holderAtLimit {
                return .failure(LargeBodyRefusal(action: .reject(.tooManyBodies())))
            } catch {
                return .failure(LargeBodyRefusal(action: .reject(.overloaded())))
            }
        }
    }
}
