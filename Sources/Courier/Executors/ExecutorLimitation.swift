import Foundation

/// Why a request could not be sent: its executor does not declare a feature the request needs. The
/// ``APIError/underlyingError`` of an ``APIError/TransportProblem/unsupportedByExecutor`` error.
public struct ExecutorLimitation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The executor's type name.
    public let executor: String
    /// The features the request needs that the executor lacks.
    public let missing: TransferFeatures

    /// Creates the error for `executor` missing `missing`.
    public init(executor: any APIExecutor, missing: TransferFeatures) {
        self.executor = String(describing: type(of: executor))
        self.missing = missing
    }

    /// The missing features by name.
    public var featureNames: [String] {
        let names: [(TransferFeatures, String)] = [
            (.fileResponses, "file responses (downloads)"), (.streamedResponses, "streamed responses"),
            (.progress, "progress"), (.fileBodies, "file bodies"), (.streamedBodies, "streamed bodies"),
            (.webSockets, "WebSockets"),
        ]
        return names.filter { missing.contains($0.0) }.map(\.1)
    }

    /// The executor and the missing features.
    public var description: String {
        "\(executor) does not support \(featureNames.joined(separator: ", ")); " + advice
    }

    /// Which executor to use instead.
    private var advice: String {
        #if canImport(FoundationNetworking)
            // FoundationNetworking's libcurl has no WebSocket support.
            if missing.contains(.webSockets) {
                return "on Linux, use AsyncHTTPClientExecutor (the CourierAsyncHTTPClient package) for WebSockets"
            }
        #endif
        return "declare them in `supportedTransfers` or use URLSessionExecutor"
    }
}
