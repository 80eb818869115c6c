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

    @Test("The swift-log block sets the levels and options it names")
    func swiftLogLevels() throws {
        var configuration = APIConfiguration.default
        // The article's block, as written:
        var logger = Logger(label: "api.github")
        logger.logLevel = .info
        let levels = SwiftLogPlugin.Levels(
            request: .trace, success: .debug, unacceptableStatus: .warning, failure: .error)
        let options = LoggingPlugin.Options(includeHeaders: true, includeCURL: true)
        configuration.plugins.append(.swiftLog(logger, options: options, levels: levels))

        let plugin = try #require(configuration.plugins.last as? SwiftLogPlugin)
        #expect(plugin.levels.success == .debug && plugin.levels.request == .trace)
        #expect(plugin.options.includeCURL && plugin.options.includeHeaders && !plugin.options.includeBodies)
    }
}
