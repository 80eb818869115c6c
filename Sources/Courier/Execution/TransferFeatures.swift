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

    /// Every feature.
    public static let all: TransferFeatures = [
        .fileResponses, .streamedResponses, .progress, .fileBodies, .streamedBodies,
    ]
}

/// Why a request could not be sent: its executor does not declare a feature the request needs. The
/// ``APIError/underlyingError`` of an ``APIError/TransportProblem/unsupportedByExecutor`` error.
@_spi(ExecutorSupport)
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
        ]
        return names.filter { missing.contains($0.0) }.map(\.1)
    }

    /// The executor and the missing features.
    public var description: String {
        "\(executor) does not support \(featureNames.joined(separator: ", ")); "
            + "declare them in `supportedTransfers` or use URLSessionExecutor"
    }
}

/// How an executor hands over a response body: in memory (the default), written to a file, or as a stream.
///
/// The call forms set it (`$endpoint.download(with:to:)`, `$endpoint.stream(with:)`); executors read it from
/// `APIRequest.responseDelivery`. Only bodies of `2xx` responses go to a file or a stream: any other status
/// is read into memory (bounded by ``APIRequest/maxResponseBytes``), so its error carries the body.
@_spi(ExecutorSupport)
public struct ResponseDelivery: Sendable {
    enum Kind: Sendable, Hashable {
        case memory
        case file(URL, offset: Int64, idleTimeout: Duration?)
        case stream(idleTimeout: Duration)
    }

    let kind: Kind
    /// Told of a file download's response head before its first byte is written.
    public let willWrite: (@Sendable (APIResponse) -> Void)?

    init(kind: Kind, willWrite: (@Sendable (APIResponse) -> Void)? = nil) {
        self.kind = kind
        self.willWrite = willWrite
    }

    /// The body is held in memory, bounded by ``APIRequest/maxResponseBytes``.
    public static let memory = ResponseDelivery(kind: .memory)

    /// The body is written to the file at `url`, which the executor creates or replaces.
    ///
    /// With `offset` > 0 the request asks for the rest of a partial download (its `Range` header starts at
    /// `offset`): a `206` whose `Content-Range` starts at `offset` is appended after the file's first `offset`
    /// bytes; any other `2xx` replaces the whole file. Not bounded by ``APIRequest/maxResponseBytes``: the
    /// disk is the limit, and memory stays bounded by one chunk.
    ///
    /// With `idleTimeout`, the request's ``APIRequest/timeout`` bounds the wait for the response head only;
    /// after it the transfer fails with ``APIError/TransportProblem/timedOut`` when no byte arrives for
    /// `idleTimeout`, however long the whole body takes. Without it, the timeout is a deadline for the whole call.
    ///
    /// The executor calls `willWrite` with the response (status and headers, no body) before it writes the
    /// first byte: `$endpoint.download(with:to:)` records the validator it needs to resume there.
    public static func file(
        _ url: URL, resumingAt offset: Int64 = 0, idleTimeout: Duration? = nil,
        willWrite: (@Sendable (APIResponse) -> Void)? = nil
    ) -> ResponseDelivery {
        ResponseDelivery(kind: .file(url, offset: max(0, offset), idleTimeout: idleTimeout), willWrite: willWrite)
    }

    /// The body is handed over as it arrives, as a ``ResponseStream``; the call fails with
    /// ``APIError/TransportProblem/timedOut`` when no byte arrives for `idleTimeout`.
    ///
    /// The request's ``APIRequest/timeout`` bounds the wait for the response head only; after that, the idle
    /// timeout applies between chunks, however long the stream lasts. Not bounded by
    /// ``APIRequest/maxResponseBytes``: a stream holds at most a small window of unread bytes in memory.
    public static func stream(idleTimeout: Duration = .seconds(60)) -> ResponseDelivery {
        ResponseDelivery(kind: .stream(idleTimeout: idleTimeout))
    }

    /// The file the body goes to, for ``file(_:resumingAt:idleTimeout:willWrite:)``.
    public var fileURL: URL? {
        if case .file(let url, _, _) = kind { return url }
        return nil
    }

    /// Where a resumed download starts (0 otherwise).
    public var resumeOffset: Int64 {
        if case .file(_, let offset, _) = kind { return offset }
        return 0
    }

    /// Whether the body is handed over as a stream.
    public var isStream: Bool {
        if case .stream = kind { return true }
        return false
    }

    /// The longest wait between two chunks of a stream, or of a file download that has an idle timeout instead
    /// of a deadline; `nil` when the request's ``APIRequest/timeout`` is a deadline for the whole call.
    public var idleTimeout: Duration? {
        switch kind {
        case .stream(let timeout): timeout
        case .file(_, _, let timeout): timeout
        case .memory: nil
        }
    }
}

extension APIRequest {
    /// The transfer features this request needs from its executor.
    @_spi(ExecutorSupport)
    public var requiredTransferFeatures: TransferFeatures {
        var features: TransferFeatures = []
        switch responseDelivery.kind {
        case .memory: break
        case .file: features.insert(.fileResponses)
        case .stream: features.insert(.streamedResponses)
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
