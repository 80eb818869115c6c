import Courier
import CourierBenchmarkSupport
import Foundation

// Runs one side of one benchmark in a loop, without the benchmark harness, for profilers:
//
//   swift build --package-path Benchmarks -c release --product CourierProfile
//   valgrind --tool=callgrind Benchmarks/.build/release/CourierProfile build.query-get.courier 20000
//
// Cases: build.<shape>.{courier,baseline} (the shapes of BuildFixture.cases), decode.{2kb,200kb}.{courier,baseline}.

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: CourierProfile <benchmark name> [iterations]")
    exit(2)
}
let name = arguments[1]
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
let endpoints = Endpoints()
var checksum = 0

if let shape = BuildFixture.cases.first(where: { name.hasPrefix($0.name + ".") }) {
    let courier = name.hasSuffix(".courier")
    for _ in 0..<iterations {
        let request = try courier ? shape.courier(endpoints) : shape.baseline()
        checksum &+= request.url?.absoluteString.utf8.count ?? 0
    }
} else if name.hasPrefix("decode.") {
    let body = name.hasPrefix("decode.2kb.") ? Fixtures.small : Fixtures.large
    let configuration = APIConfiguration(
        baseURL: URL(string: "https://api.example.com"), executor: ConstantExecutor(body: body))
    for _ in 0..<iterations {
        let repositories: [Repository]
        if name.hasSuffix(".courier") {
            repositories = try await endpoints.repos.request(with: "octocat", using: configuration)
        } else {
            repositories = try JSONDecoder().decode([Repository].self, from: body)
        }
        checksum &+= repositories.count
    }
} else {
    print("unknown benchmark \(name)")
    exit(2)
}
print("\(name): \(iterations) iterations, checksum \(checksum)")
