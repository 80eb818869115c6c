import Foundation
import Testing

/// The upload sink (`scripts/sinkserver.py`): it reads bodies of any size without keeping them and answers with
/// their SHA-256 and byte count, and for `/sink-multipart` each part's, from a parser of its own.
///
/// `scripts/test` starts it and exports `COURIER_SINK_URL`. Suites carry ``Testing/Trait/uploadSink``: skipped
/// locally without the variable, failed under `CI=true`. By hand: `scripts/sinkserver.sh serve`.
enum UploadSink {
    static let environmentKey = "COURIER_SINK_URL"

    struct MissingServer: Error, CustomStringConvertible {
        let description: String
    }

    static let base: URL? = {
        guard let text = ProcessInfo.processInfo.environment[environmentKey], !text.isEmpty else { return nil }
        return URL(string: text)
    }()

    static func isAvailable() throws -> Bool {
        if base != nil { return true }
        if HTTPBin.isCI {
            throw MissingServer(description: "CI=true but \(environmentKey) is not set: run scripts/test")
        }
        return false
    }

    static func url() throws -> URL {
        guard let base else {
            throw MissingServer(description: "\(environmentKey) is not set: run scripts/test or scripts/sinkserver.sh")
        }
        return base
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite against the upload sink named by `COURIER_SINK_URL` (skipped locally without it, failed under CI).
    static var uploadSink: Self {
        .enabled(if: try UploadSink.isAvailable(), "needs the upload sink: COURIER_SINK_URL is not set")
    }
}
