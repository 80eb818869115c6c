import Courier
import CourierObservability
import Foundation
import Metrics

// What `.metrics()` adds to a call, for `scripts/instructions --metrics` (callgrind):
//
//   swift build --package-path CourierObservability -c release --product CourierObservabilityProfile
//   valgrind --tool=callgrind CourierObservability/.build/release/CourierObservabilityProfile pipeline.metrics 1000
//
// Cases: `pipeline` (a whole call on an executor that answers at once with 2 KB, the body returned as `Data`, no
// observer: Benchmarks' `pipeline`), `decode` (the same 2 KB as a JSON array decoded into models: a usual call, like
// Benchmarks' `decode.2kb.courier`), and each with `.metrics` (`pipeline.metrics`, `decode.metrics`): the same call
// with `.metrics()` registered on a no-op swift-metrics backend, as an app without a bootstrapped backend has: what
// Courier's side of the metrics costs.

/// One element of the 2 KB JSON array.
struct Repository: Codable, Sendable {
    let id: Int
    let name: String
    let fullName: String
    let stars: Int
    let fork: Bool
    let description: String?
}

/// About 2 KB of JSON: 18 repositories.
let body =
    (try? JSONEncoder().encode(
        (0..<18).map {
            Repository(
                id: 100_000 + $0, name: "project-\($0)", fullName: "octocat/project-\($0)", stars: $0 * 31,
                fork: $0.isMultiple(of: 3), description: $0.isMultiple(of: 4) ? nil : "A sample repository \($0)")
        })) ?? Data()

/// Answers every request at once with the same body.
struct ConstantExecutor: APIExecutor {

    func execute(_ request: APIRequest) async throws -> APIResponse {
        APIResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: .data(body), request: request)
    }
}

@MainActor
enum Book {
    @GET("/users/{login}/repos.json")
    static var repos: APIParameterBuilder<String>? = .init { ["login": $0] }
}

/// Runs the calls in a task, with the main thread waiting on a semaphore (valgrind 3.19 crashes in an async main's
/// `dispatch_main()`), and exits.
func run(_ name: String, _ calls: Int, configuration: APIConfiguration, endpoint: GET<String>) -> Never {
    let decodes = name.hasPrefix("decode")
    Task.detached {
        do {
            var sum = 0
            for _ in 0..<calls {
                if decodes {
                    let repositories: [Repository] = try await endpoint.request(with: "octocat", using: configuration)
                    sum &+= repositories.count
                } else {
                    let data: Data = try await endpoint.request(with: "octocat", using: configuration)
                    sum &+= data.count
                }
            }
            print("\(name): \(calls) iterations, checksum \(sum)")
            exit(0)
        } catch {
            print("\(name): \(error)")
            exit(1)
        }
    }
    DispatchSemaphore(value: 0).wait()
    exit(0)
}

let arguments = CommandLine.arguments
let name = arguments.count > 1 ? arguments[1] : ""
let calls = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com"), executor: ConstantExecutor())
switch name {
case "pipeline", "decode": break
case "pipeline.metrics", "decode.metrics": configuration.observers = [.metrics(factory: NOOPMetricsHandler.instance)]
default:
    print("usage: CourierObservabilityProfile pipeline|decode[.metrics] [calls]")
    exit(2)
}
let endpoint = MainActor.assumeIsolated { Book.$repos }
run(name, calls, configuration: configuration, endpoint: endpoint)
