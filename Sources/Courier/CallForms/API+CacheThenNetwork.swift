import Foundation

/// One value of the cache-then-network call form.
public enum CacheThenNetworkUpdate<Output> {
    /// The cached value, first; `age` is how long ago it was received, in seconds, and it may be stale.
    case cached(Output, age: TimeInterval)
    /// The network's value, after the cached one if there was one.
    case network(Output)
    /// The network call failed after a cached value was delivered: show the cached value as outdated.
    /// Without a cached value a network failure is thrown instead.
    case networkFailed(APIError)

    /// The value, cached or from the network; `nil` for a failure.
    public var value: Output? {
        switch self {
        case .cached(let value, _), .network(let value): value
        case .networkFailed: nil
        }
    }
}

extension CacheThenNetworkUpdate: Sendable where Output: Sendable {}

/// The cached value of a call (if the cache holds one), then the network's: the sequence
/// ``API/cacheThenNetwork(with:using:decoder:)`` returns.
///
/// It ends after the network value or failure. The work runs in the task that iterates, so cancelling that
/// task cancels the call. A network failure is thrown when no cached value came first (errors are
/// ``APIError``), and delivered as ``CacheThenNetworkUpdate/networkFailed(_:)`` when one did.
public struct CacheThenNetworkSequence<Output>: AsyncSequence {
    /// One update.
    public typealias Element = CacheThenNetworkUpdate<Output>

    let cached: () async throws(APIError) -> (Output, TimeInterval)?
    let network: () async throws(APIError) -> Output

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(cached: cached, network: network)
    }

    /// Produces the cached update, then the network update.
    public struct Iterator: AsyncIteratorProtocol {
        /// What a loop over the updates throws: `catch` around `for try await` gets an ``APIError``
        /// (in a closure, under `do throws(APIError)`).
        public typealias Failure = APIError

        let cached: () async throws(APIError) -> (Output, TimeInterval)?
        let network: () async throws(APIError) -> Output
        var step = 0
        var deliveredCached = false

        /// The next update, `nil` at the end.
        /// - Throws: ``APIError``, for a network failure when no cached value came first.
        public mutating func next() async throws -> CacheThenNetworkUpdate<Output>? {
            if step == 0 {
                step = 1
                if let (value, age) = try await cached() {
                    deliveredCached = true
                    return .cached(value, age: age)
                }
            }
            guard step == 1 else { return nil }
            step = 2
            do {
                return .network(try await network())
            } catch {
                guard deliveredCached, !error.isCancellation else { throw error }
                return .networkFailed(error)
            }
        }
    }
}

extension API {
    /// Calls the endpoint with `parameter` and delivers the cached value first, if the configuration's
    /// ``ResponseCache`` holds one (fresh or not), then the network's, which is written to the cache as the
    /// policy says.
    ///
    /// ```swift
    /// for try await update in GitHub.$user.cacheThenNetwork(with: "octocat") as CacheThenNetworkSequence<User> {
    ///     switch update {
    ///     case .cached(let user, let age): show(user, outdated: age > 60)
    ///     case .network(let user): show(user)
    ///     case .networkFailed(let error): showBanner(error)   // the cached user stays on screen
    ///     }
    /// }
    /// ```
    ///
    /// Without a cache on the configuration, only the network value comes.
    public func cacheThenNetwork<Output: Decodable>(
        with parameter: Parameter,
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) -> CacheThenNetworkSequence<Output> {
        let configuration = configuration ?? .current
        return CacheThenNetworkSequence(
            cached: { () async throws(APIError) -> (Output, TimeInterval)? in
                guard configuration.cache != nil else { return nil }
                let response: APIResponse
                do throws(APIError) {
                    response = try await self.response(with: parameter, using: configuration, pass: .cachedAnyAge)
                } catch {
                    guard error.reason == .notCached else { throw error }
                    return nil
                }
                // The call's decoder: its own, else the one its request resolved.
                let chosen = response.request.resolvedOptions(for: configuration).decoder(forCall: decoder)
                let value = try ResponseDecoding.decode(Output.self, from: response, decoder: chosen)
                return (value, response.cacheHit?.age ?? 0)
            },
            network: { () async throws(APIError) -> Output in
                let response = try await self.response(with: parameter, using: configuration, pass: .network)
                let chosen = response.request.resolvedOptions(for: configuration).decoder(forCall: decoder)
                return try ResponseDecoding.decode(Output.self, from: response, decoder: chosen)
            }
        )
    }
}

extension API {
    /// The response of the call with `parameter`, with the cache read as `pass` says, its error typed
    /// (`TaskLocal.withValue` rethrows `any Error`).
    fileprivate func response(
        with parameter: Parameter, using configuration: APIConfiguration, pass: ResponseCache.Pass
    ) async throws(APIError) -> APIResponse {
        let outcome: Result<APIResponse, APIError> = await ResponseCache.$pass.withValue(pass) {
            do throws(APIError) {
                return .success(try await self.request(with: parameter, using: configuration) as APIResponse)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

extension API where Parameter == Void {
    /// Calls the endpoint and delivers the cached value first, then the network's; see
    /// ``API/cacheThenNetwork(with:using:decoder:)``.
    public func cacheThenNetwork<Output: Decodable>(
        using configuration: APIConfiguration? = nil,
        decoder: (any ResponseDecoder)? = nil
    ) -> CacheThenNetworkSequence<Output> {
        cacheThenNetwork(with: (), using: configuration, decoder: decoder)
    }
}
