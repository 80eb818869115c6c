import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// `URLSessionExecutor(configuration:trust:proxy:)` on Linux, against the fault server: FoundationNetworking
    /// ignores a session's proxy, so a hop the proxy would carry fails before any I/O (the proxy named here listens
    /// nowhere), and a bypassed host is reached directly. AsyncHTTPClientExecutor's proxy is tested against squid
    /// (CourierAsyncHTTPClient's ProxyTests).
    @Suite("URLSessionExecutor: a proxy on Linux", .faultServer)
    struct ProxyIntegrationTests {
        struct Hits: Decodable { let hits: Int }

        static let proxy = HTTPProxy(
            HTTPProxy.Server(host: "127.0.0.1", port: 9, username: "svc", password: "pw-never-sent"),
            bypass: ["127.0.0.2"])

        static func hits(_ key: String) async throws -> Int {
            let configuration = APIConfiguration(
                baseURL: try FaultServer.required(FaultServer.main, FaultServer.environmentKey),
                executor: URLSessionExecutor.shared)
            let hits: Hits = try await GET<String>("/count-stats") { ["key": $0] }.request(
                with: key, using: configuration)
            return hits.hits
        }

        @Test("A call the proxy would carry fails with unsupportedByExecutor before any I/O; a bypassed one goes")
        func refusedAndBypassed() async throws {
            let executor = URLSessionExecutor(configuration: .default, proxy: Self.proxy)
            let proxied = APIConfiguration(
                baseURL: try FaultServer.required(FaultServer.main, FaultServer.environmentKey), executor: executor)
            let bypassed = proxied.with {
                $0.baseURL = FaultServer.otherHost
            }
            let count = GET<String>("/count") { ["key": $0] }
            let (refusedKey, directKey) = (UUID().uuidString, UUID().uuidString)

            let error = await #expect(throws: APIError.self) {
                let _: Hits = try await count.request(with: refusedKey, using: proxied)
            }
            let direct: Hits = try await count.request(with: directKey, using: bypassed)

            #expect(error?.reason == .transport(.unsupportedByExecutor))
            #expect(error?.endpoint.description == "GET /count")
            let limitation = try #require(error?.underlyingError as? ProxyLimitation)
            #expect("\(limitation)".contains("FoundationNetworking ignores a session's proxy settings"))
            #expect(!"\(String(reflecting: error))".contains("pw-never-sent"))
            #expect(try await Self.hits(refusedKey) == 0)
            #expect(direct.hits == 1)
        }

        @Test("A redirect from a bypassed host to one the proxy covers stops before the second hop")
        func redirectIntoTheProxy() async throws {
            let executor = URLSessionExecutor(configuration: .default, proxy: Self.proxy)
            let configuration = APIConfiguration(baseURL: FaultServer.otherHost, executor: executor)
            let main = try FaultServer.Origin.main.baseText()
            let key = UUID().uuidString
            let redirect = GET<String>("/redirect") { ["to": $0] }

            let error = await #expect(throws: APIError.self) {
                let _: Hits = try await redirect.request(with: "\(main)/count?key=\(key)", using: configuration)
            }

            #expect(error?.reason == .transport(.unsupportedByExecutor))
            #expect(try await Self.hits(key) == 0)
        }
    }
#endif
