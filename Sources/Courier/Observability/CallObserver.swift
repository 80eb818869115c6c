/// Watches calls as they run: set observers on ``APIConfiguration/observers``; each sees every event of every
/// call made with the configuration, in order, with the call's timeline so far.
///
/// With no observer a call records nothing. Observers run on the call's path, synchronously: keep them fast and
/// hand slow work (writing a file, sending a report) to another task.
///
/// ## Implementing
///
/// ```swift
/// struct SlowCalls: CallObserver {
///     func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
///         guard event.kind == .finished, let duration = timeline.duration, duration > .seconds(2) else { return }
///         print("slow call:", timeline)
///     }
/// }
///
/// configuration.observers.append(SlowCalls())
/// ```
public protocol CallObserver: Sendable {
    /// Called for each event of a call, just after it happened; `timeline` holds it as its last event.
    func observe(_ event: CallTimeline.Event, in timeline: CallTimeline)
}
