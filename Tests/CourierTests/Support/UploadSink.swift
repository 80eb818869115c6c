import CourierTesting
import Foundation
import Testing

/// The upload sink (`scripts/servers/sinkserver.py`): it reads bodies of any size without keeping them and answers
/// with their SHA-256 and byte count, and for `/sink-multipart` each part's, from a parser of its own.
///
/// `scripts/test` starts it and exports `COURIER_SINK_URL`. Suites carry ``Testing/Trait/uploadSink``: skipped
/// locally without the variable, failed under `CI=true`. By hand: `scripts/servers.sh serve sink`.
enum UploadSink {
    static let environmentKey = "COURIER_SINK_URL"

    static let base: URL? = ExecutorConformance.Servers.url(environmentKey)

    static func url() throws -> URL {
        try #require(base, "\(environmentKey) is not set: run scripts/test or scripts/servers.sh serve sink")
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the upload sink named by `COURIER_SINK_URL` (skipped locally without it, failed under CI).
    static var uploadSink: Self { .testEnvironment(UploadSink.environmentKey, setBy: "scripts/test") }
}
