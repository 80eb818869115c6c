import Foundation

/// The transfers an executor carries out beyond in-memory bodies: what ``APIExecutor/supportedTransfers``
/// declares.
///
/// Courier checks a request against its executor before any I/O: a request that needs a feature the executor
/// does not declare fails with ``APIError/TransportProblem/unsupportedByExecutor`` (its underlying error is an
/// `ExecutorLimitation` naming the executor and the missing features). Nothing silently falls back to
/// buffering a large body in memory.
public struct TransferFeatures: OptionSet, Sendable, Hashable {
    /// The bits of the set.
    public let rawValue: Int

    /// Creates a set from its bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Writes a response body to a file (`ResponseDelivery.file(_:resumingAt:idleTimeout:willWrite:)`), appending to the first
    /// bytes when the server answers `206` to a resumed download.
    public static let fileResponses = TransferFeatures(rawValue: 1 << 0)
    /// Hands a response body over as it arrives (`ResponseDelivery.stream(idleTimeout:)`).
    public static let streamedResponses = TransferFeatures(rawValue: 1 << 1)
    /// Reports bytes sent and received to the request's ``APIRequest/progress``.
    public static let progress = TransferFeatures(rawValue: 1 << 2)
    /// Sends a request body read from a file.
    public static let fileBodies = TransferFeatures(rawValue: 1 << 3)
    /// Sends a request body read from a one-shot stream or streamed part by part (multipart).
    public static let streamedBodies = TransferFeatures(rawValue: 1 << 4)
    /// Opens WebSockets: answers a ``ResponseDelivery/webSocket`` request with its handshake, and on `101` with a
    /// ``WebSocketConnection`` over its ``WebSocketTransport``.
    public static let webSockets = TransferFeatures(rawValue: 1 << 5)

    /// Every transfer of a response or a body beyond memory: files, streams and progress. Not ``webSockets``, which an
    /// executor declares on its own (`[.all, .webSockets]`): an executor that declared `.all` before WebSockets
    /// existed must not be handed a handshake it cannot answer.
    public static let all: TransferFeatures = [
        .fileResponses, .streamedResponses, .progress, .fileBodies, .streamedBodies,
    ]
}

extension APIRequest {
    /// The transfer features this request needs from its executor.
    public var requiredTransferFeatures: TransferFeatures {
        var features: TransferFeatures = []
        switch responseDelivery.kind {
        case .memory: break
        case .file: features.insert(.fileResponses)
        case .stream: features.insert(.streamedResponses)
        case .webSocket: features.insert(.webSockets)
        }
        if progress != nil { features.insert(.progress) }
        switch body.storage {
        case .empty, .data: break
        case .file: features.insert(.fileBodies)
        case .stream, .multipart: features.insert(.streamedBodies)
        }
        return features
    }
}

extension APIExecutor {
    /// In-memory requests and responses only: an executor that implements only
    /// ``execute(_:)`` keeps working, and requests that need more fail before any I/O.
    public var supportedTransfers: TransferFeatures { [] }

    /// Throws ``APIError/TransportProblem/unsupportedByExecutor`` unless this executor declares every feature
    /// `request` needs.
    func checkSupport(for request: APIRequest) throws(APIError) {
        let needed = request.requiredTransferFeatures
        guard !needed.isEmpty else { return }
        let missing = needed.subtracting(supportedTransfers)
        guard missing.isEmpty else {
            throw APIError(
                .transport(.unsupportedByExecutor), endpoint: request.endpoint, request: request,
                underlyingError: ExecutorLimitation(executor: self, missing: missing))
        }
    }
}
