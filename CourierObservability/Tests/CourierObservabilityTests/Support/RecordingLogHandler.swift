import Foundation
import Logging

@testable import CourierObservability

/// A swift-log handler that keeps every entry in memory, for tests.
struct RecordingLogHandler: LogHandler {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    /// Where the entries go; shared by the copies swift-log makes of the handler.
    final class Store: Sendable {
        private let box = Locked<[Entry]>([])
        var entries: [Entry] { box.withLockedValue { $0 } }
        func append(_ entry: Entry) { box.withLockedValue { $0.append(entry) } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.append(
            Entry(
                level: event.level, message: "\(event.message)",
                metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }

    /// A logger at `level` that records into a new store.
    static func logger(level: Logger.Level = .trace) -> (Logger, Store) {
        let store = Store()
        var logger = Logger(label: "courier.tests") { _ in RecordingLogHandler(store: store) }
        logger.logLevel = level
        return (logger, store)
    }
}
