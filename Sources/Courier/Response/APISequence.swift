/// The asynchronous sequences Courier hands out, as one type: a streamed body's ``ResponseStream/lines`` and
/// ``ResponseStream/events``, and the pages of a list (``API/pages(with:as:next:using:decoder:)``).
///
/// ```swift
/// for try await event in try await Feeds.$live.stream(with: "news").events { apply(event) }
/// for try await repos in GitHub.$repos.pages(with: "apple", as: [Repo].self) { all += repos }
/// ```
///
/// Elements are produced in the task that iterates, one at a time as the loop asks for them: cancelling that
/// task, or leaving the loop, stops the work. Errors are ``APIError``s.
public struct APISequence<Element>: AsyncSequence, Sendable {
    /// Makes the source of one iteration.
    let makeSource: @Sendable () -> any APISequenceSource<Element>

    /// A sequence whose iterations read from the sources `makeSource` makes.
    init(_ makeSource: @escaping @Sendable () -> any APISequenceSource<Element>) {
        self.makeSource = makeSource
    }

    /// Starts an iteration.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: makeSource())
    }

    /// Produces the elements of one iteration.
    public struct Iterator: AsyncIteratorProtocol {
        /// What a loop over the sequence throws: `catch` around `for try await` gets an ``APIError``
        /// (in a closure, under `do throws(APIError)`).
        public typealias Failure = APIError

        var source: any APISequenceSource<Element>

        /// The next element, or `nil` at the end.
        /// - Throws: ``APIError``.
        public mutating func next() async throws -> Element? {
            try await source.next()
        }
    }
}

/// What an ``APISequence`` reads its elements from: the state of one iteration.
protocol APISequenceSource<Element> {
    associatedtype Element
    /// The next element, or `nil` at the end.
    mutating func next() async throws(APIError) -> Element?
}
