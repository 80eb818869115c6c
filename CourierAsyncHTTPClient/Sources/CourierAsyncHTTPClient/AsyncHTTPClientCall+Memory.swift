import AsyncHTTPClient
@_spi(CourierInternals) import Courier
import NIOCore

// The path of a call whose body is held in memory (the default delivery). It runs in the caller's task, on
// AsyncHTTPClient's async interface, as a raw `HTTPClient` call does:
//
// - AsyncHTTPClient's own deadline bounds each hop until its head arrives;
// - each read of a body then runs in a task of its own, started at once on the caller's thread
//   (`Task.immediate`), which the call's deadline (``DeadlineTimer``) or the caller's cancellation cancels.
//
// A small body usually arrives with its head: its read ends before that task would first wait, so it costs
// neither a thread hop nor a timer on an event loop.
extension AsyncHTTPClientCall {
    /// Sends the request and each redirect hop the policy follows; returns the final response with its body.
    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    func runInMemory() async throws -> APIResponse {
        defer { request.progress?.finish() }
        return try await perform(boundingBodyReadsBy: .now() + TimeAmount(request.timeout))
    }

    /// Runs `read`, a read of a response body, in a task started at once in the caller's thread, cancelled at
    /// `deadline` or when the caller is.
    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    func bounded<Result: Sendable>(
        by deadline: NIODeadline, _ read: sending @escaping @isolated(any) () async throws -> Result
    ) async throws -> Result {
        let work = Task.immediate(operation: read)
        let timer = DeadlineTimer.shared.add(deadline) { self.stop(.timedOut, work) }
        defer { DeadlineTimer.shared.remove(timer) }
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            self.stop(.cancelled, work)
        }
    }
}
