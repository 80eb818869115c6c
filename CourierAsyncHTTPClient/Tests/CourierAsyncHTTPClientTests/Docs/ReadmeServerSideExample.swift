import Courier
import CourierAsyncHTTPClient
import Foundation
import Logging
import Testing

/// The README's "Executors" examples (```swift CourierAsyncHTTPClient blocks), compiled and run.
@Suite("README: Executors")
struct ReadmeServerSideExample {
    @Test("The two-line set-up installs the executor; the plugins line adds tracing and logging")
    func setUp() throws {
        let saved = APIConfiguration.default
        defer { APIConfiguration.default = saved }
        let apiURL = URL(string: "https://api.example.com")

        APIConfiguration.default = APIConfiguration(baseURL: apiURL, executor: AsyncHTTPClientExecutor())

        #expect(APIConfiguration.default.executor is AsyncHTTPClientExecutor)
        var configuration = APIConfiguration.default
        let logger = Logger(label: "api")
        configuration.plugins += [.tracing(), .swiftLog(logger)]
        #expect(configuration.plugins.map { "\(type(of: $0))" } == ["TracingPlugin", "SwiftLogPlugin"])
    }
}
