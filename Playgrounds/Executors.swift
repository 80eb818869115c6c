// Executors: the one place where a request meets the network. Swap it per call, per task or globally, without
// touching a single endpoint declaration.
import Courier
import CourierTesting
import Foundation

#if canImport(CourierAsyncHTTPClient)
    import CourierAsyncHTTPClient
#endif

/// A custom executor: it wraps another one and prints each request and response. Every → and ← line of this
/// playground comes from it; main.swift installs `LoggingExecutor(wrapping: URLSessionExecutor.shared)`.
struct LoggingExecutor: APIExecutor {
    let wrapped: any APIExecutor
    var label = ""

    init(wrapping wrapped: any APIExecutor, label: String = "") {
        self.wrapped = wrapped
        self.label = label.isEmpty ? "" : "[\(label)] "
    }

    /// A wrapper can do what the executor it wraps can: downloads, streams, progress (see the Transfers page).
    var supportedTransfers: TransferFeatures { wrapped.supportedTransfers }

    func execute(_ request: APIRequest) async throws -> APIResponse {
        Console.sent(request, label: label)
        let start = ContinuousClock.now
        do {
            let response = try await wrapped.execute(request)
            Console.received(response, after: ContinuousClock.now - start, label: label)
            return response
        } catch {
            // Executors may throw URLError or APIError; `APIError.wrapping` classifies both the way Courier does.
            let elapsed = Console.milliseconds(ContinuousClock.now - start)
            Console.line("  ← \(label)no response after \(elapsed) ms: \(APIError.wrapping(error, request: request))")
            throw error
        }
    }
}

@MainActor
enum Origin {
    @GET("/ip")
    static var ip: APIParameterBuilder<Void>? = nil
}

struct IPAnswer: Decodable, Sendable {
    var origin: String
}

@MainActor
enum ExecutorsPage {
    static func run(_ stage: Stage) async throws {
        Console.step("By default a call uses `APIConfiguration.default`; here its executor is:")
        let installed = APIConfiguration.default.executor
        let inner = (installed as? LoggingExecutor).map { "\(type(of: $0.wrapped))" } ?? "?"
        Console.result("\(type(of: installed)) around \(inner)")
        if stage.isOffline {
            Console.note("offline, the StubExecutor of OfflineServer.swift stands in for URLSessionExecutor")
        }
        let real: IPAnswer = try await Origin.$ip.request()
        Console.result("origin \(real.origin)")

        // Two canned servers, built with CourierTesting, each behind a LoggingExecutor with a label.
        let stubA = LoggingExecutor(
            wrapping: StubExecutor().stubEverything(with: .json(#"{"origin":"203.0.113.1"}"#)), label: "stub A")
        let stubB = LoggingExecutor(
            wrapping: StubExecutor().stubEverything(with: .json(#"{"origin":"203.0.113.2"}"#)), label: "stub B")

        Console.step("Per call: `request(using: configuration)` wins over everything else, for this call only")
        let perCall: IPAnswer = try await Origin.$ip.request(
            using: APIConfiguration.default.with { $0.executor = stubA })
        Console.result("origin \(perCall.origin)")

        Console.step(
            "Per task: `APIConfiguration.withCurrent(configuration) { … }` covers every call inside, child tasks too")
        try await APIConfiguration.withCurrent(APIConfiguration.default.with { $0.executor = stubB }) {
            let inside: IPAnswer = try await Origin.$ip.request()
            async let child: IPAnswer = Origin.$ip.request()
            let fromChild = try await child
            Console.result("inside: origin \(inside.origin); in a child task: origin \(fromChild.origin)")
            Console.note("other tasks keep their own configuration, so parallel tests never see each other's stubs")

            Console.step("Inside the task scope, a call's own `using:` still wins")
            let mine: IPAnswer = try await Origin.$ip.request(
                using: APIConfiguration.default.with { $0.executor = stubA })
            Console.result("origin \(mine.origin)")
        }

        Console.step("Globally: set `APIConfiguration.default` once at start-up (here changed, then restored)")
        let saved = APIConfiguration.default
        defer { APIConfiguration.default = saved }
        APIConfiguration.default.executor = stubB
        let global: IPAnswer = try await Origin.$ip.request()
        APIConfiguration.default = saved
        let restored: IPAnswer = try await Origin.$ip.request()
        Console.result("while changed: origin \(global.origin); restored: origin \(restored.origin)")

        Console.step("Any executor plugs in, e.g. URLSessionExecutor on its own, without the logging wrapper")
        let plain = stage.isOffline ? stage.transport : URLSessionExecutor()
        let quiet: IPAnswer = try await Origin.$ip.request(using: APIConfiguration.default.with { $0.executor = plain })
        Console.result("origin \(quiet.origin), via \(type(of: plain)) (no → / ← lines: nothing logged it)")
        Console.note("an Alamofire adapter is one `execute(_:)` method like LoggingExecutor's")

        #if canImport(CourierAsyncHTTPClient)
            Console.step("On a server: AsyncHTTPClientExecutor, from the CourierAsyncHTTPClient package in this build")
            let server: any APIExecutor = stage.isOffline ? stage.transport : AsyncHTTPClientExecutor()
            let viaNIO: IPAnswer = try await Origin.$ip.request(
                using: APIConfiguration.default.with { $0.executor = server })
            Console.result("origin \(viaNIO.origin), via \(type(of: server))")
        #else
            Console.note(
                "on a Linux server, swap in `AsyncHTTPClientExecutor()` from the CourierAsyncHTTPClient package "
                    + "(README, \"Executors\"): SwiftNIO's HTTP client, the same contract")
        #endif
    }
}
