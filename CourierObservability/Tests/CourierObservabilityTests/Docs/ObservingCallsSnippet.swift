import Courier
import CourierObservability
import Logging
import Metrics
import Testing
import Tracing

/// The DocC article "Observing calls": its CourierObservability set-up, compiled with the imports and products its
/// manifest snippet names, and run against swift-metrics' and swift-distributed-tracing's no-op backends.
@Suite("Docs: Observing calls")
struct ObservingCallsSnippet {
    @Test("The set-up adds the metrics observer and the three plugins, in order")
    func setUp() {
        // The article's block, as written:
        let logger = Logger(label: "api")
        var configuration = APIConfiguration.default
        configuration.observers.append(.metrics())
        configuration.plugins = [.tracing(), .retry(), .swiftLog(logger)]

        #expect(configuration.observers.last is MetricsObserver)
        #expect(configuration.plugins.map { "\(type(of: $0))" } == ["TracingPlugin", "RetryPlugin", "SwiftLogPlugin"])
    }
}
