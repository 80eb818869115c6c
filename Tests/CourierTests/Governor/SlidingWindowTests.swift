import Testing

@testable import Courier

/// `SlidingWindow`: two counts over the last window of time, in slots, driven by durations without a clock.
@Suite("SlidingWindow")
struct SlidingWindowTests {
    @Test(
        "A count counts while its slot is within the window, and not after",
        arguments: [
            (Duration.seconds(1), SlidingWindow.Counts(first: 1, second: 1)),
            (.milliseconds(9_999), .init(first: 1, second: 1)),
            (.seconds(10), .init(first: 0, second: 1)),
            (.seconds(11), .init(first: 0, second: 0)),
        ])
    func expiry(at now: Duration, counts: SlidingWindow.Counts) {
        var window = SlidingWindow(window: .seconds(10), slots: 10)
        window.add(first: true, at: .zero)
        window.add(first: false, at: .seconds(1))
        #expect(window.counts(at: now) == counts)
    }

    @Test("A slot used again after a full turn starts from zero; reset forgets every count")
    func reuse() {
        var window = SlidingWindow(window: .seconds(10), slots: 10)
        window.add(first: true, at: .seconds(2))
        window.add(first: true, at: .seconds(2))
        window.add(first: false, at: .seconds(12))
        #expect(window.counts(at: .seconds(12)) == .init(first: 0, second: 1))
        window.reset()
        #expect(window.counts(at: .seconds(12)) == .init())
    }

    @Test(
        "Extreme times and a zero window neither trap nor count what they should not",
        arguments: [Duration.seconds(Int64.max), .seconds(Int64.min), .zero])
    func extremes(now: Duration) {
        var window = SlidingWindow(window: .seconds(10), slots: 0)
        window.add(first: true, at: now)
        #expect(window.counts(at: now) == .init(first: 1, second: 0))
        var empty = SlidingWindow(window: .zero)
        empty.add(first: false, at: now)
        #expect(empty.counts(at: now) == .init(first: 0, second: 1))
    }
}
