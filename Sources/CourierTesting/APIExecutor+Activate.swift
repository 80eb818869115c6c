import Courier
import Foundation

extension APIExecutor {
    /// Runs `operation` with this executor in effect for the current task and its children only, so that parallel
    /// tests never share one: a ``StubExecutor``, a ``Cassette``, or any other executor.
    ///
    /// The configuration is `configuration` (default: ``/Courier/APIConfiguration/current``) with this executor.
    /// For a ``StubExecutor`` without a base URL, `https://stub.invalid` is used so that relative paths still build;
    /// any other executor (a ``Cassette`` records through a real one) keeps the configuration as it is, so a call
    /// without a base URL fails with ``/Courier/APIError/RequestProblem/missingBaseURL`` before any I/O instead of
    /// reaching for a host that does not exist. It throws what `operation` throws, with its type
    /// (`{ () throws(APIError) in … }` keeps `APIError`).
    @discardableResult
    public func activate<Value, Failure: Error>(
        in configuration: APIConfiguration? = nil,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        var configuration = (configuration ?? .current).with { $0.executor = self }
        if configuration.baseURL == nil, self is StubExecutor {
            configuration.baseURL = URL(string: "https://stub.invalid")
        }
        return try await APIConfiguration.withCurrent(configuration, isolation: isolation, operation: operation)
    }
}
