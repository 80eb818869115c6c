// CourierFuzz — random endpoints and inputs through `makeRequest(with:using:)`; with --json, the differential
// fuzz of Courier's JSON decoder against JSONDecoder (JSONFuzz.swift).
//
//     CourierFuzz [--json] [--seed S] [--cases N] [--verbose]
//
// Every failure must be an `APIError` naming the endpoint, and must be expected (the oracle says why);
// every success must decode back, with the fuzzer's own decoders, to the values it was given. Prints the
// seed first and `cases=… ok=… rejected=… failures=…` last; exits with 1 on any failure.
@_spi(Testing) import Courier
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

var seed = UInt64(Date().timeIntervalSince1970 * 1000)
var cases = 10_000
var verbose = false
var json = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--seed":
        guard let value = arguments.popFirst().flatMap({ UInt64($0) }) else {
            print("CourierFuzz: --seed needs a number")
            exit(2)
        }
        seed = value
    case "--cases":
        guard let value = arguments.popFirst().flatMap({ Int($0) }), value >= 0 else {
            print("CourierFuzz: --cases needs a number")
            exit(2)
        }
        cases = value
    case "--verbose":
        verbose = true
    case "--json":
        json = true
    default:
        print("usage: CourierFuzz [--json] [--seed S] [--cases N] [--verbose]")
        exit(2)
    }
}

/// Writes a line at once, unbuffered, so that it survives a crash.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

say("CourierFuzz\(json ? " --json" : "") seed=\(seed) cases=\(cases)")
if json { exit(JSONFuzz.run(seed: seed, cases: cases, verbose: verbose)) }

func parameters(_ fuzzCase: FuzzCase) -> Parameters {
    func raw(_ value: FuzzValue) -> any Encodable & Sendable {
        switch value {
        case .string(let string): string
        case .int(let int): int
        case .double(let double): double
        case .bool(let bool): bool
        case .date(let date): date
        case .decimal(let decimal): decimal
        case .float(let float): float
        case .uuid(let uuid): uuid
        default: value
        }
    }
    switch fuzzCase.parameters {
    case .named(let named):
        var parameters: Parameters = [:]
        for entry in named {
            parameters.append(entry.name, entry.value.map { entry.raw ? raw($0) : $0 })
        }
        return parameters
    case .model(let members):
        return Parameters(model: FuzzModel(members: members))
    case .list(let values):
        switch values.count {
        case 1: return [values[0]]
        case 2: return [values[0], values[1]]
        default: return [values[0], values[1], values[2]]
        }
    }
}

func build<Method: HTTPMethodMarker>(
    _ method: Method.Type,
    _ fuzzCase: FuzzCase,
    _ configuration: APIConfiguration
) throws(APIError) -> APIRequest {
    let endpoint = API<FuzzInput, Method>(
        wrappedValue: APIParameterBuilder { $0.parameters },
        fuzzCase.template,
        headers: HTTPHeaders(
            fuzzCase.staticHeaders.map { HTTPHeaders.Field(name: .init(rawValue: $0.0), value: $0.1) }),
        encoding: fuzzCase.encoding,
        headerBuilder: { $0.headers }
    )
    let input = FuzzInput(
        parameters: parameters(fuzzCase),
        headers: HTTPHeaders(
            fuzzCase.builderHeaders.map { HTTPHeaders.Field(name: .init(rawValue: $0.0), value: $0.1) })
    )
    return try endpoint.makeRequest(with: input, using: configuration)
}

func run(_ fuzzCase: FuzzCase, _ configuration: APIConfiguration) throws(APIError) -> APIRequest {
    switch fuzzCase.methodIndex {
    case 0: try build(HTTPMethodMarkers.Get.self, fuzzCase, configuration)
    case 1: try build(HTTPMethodMarkers.Post.self, fuzzCase, configuration)
    case 2: try build(HTTPMethodMarkers.Put.self, fuzzCase, configuration)
    case 3: try build(HTTPMethodMarkers.Patch.self, fuzzCase, configuration)
    case 4: try build(HTTPMethodMarkers.Delete.self, fuzzCase, configuration)
    case 5: try build(HTTPMethodMarkers.Head.self, fuzzCase, configuration)
    case 6: try build(HTTPMethodMarkers.Options.self, fuzzCase, configuration)
    case 7: try build(HTTPMethodMarkers.Query.self, fuzzCase, configuration)
    case 8: try build(Trace.self, fuzzCase, configuration)
    default: try build(Connect.self, fuzzCase, configuration)
    }
}

/// Custom markers (Courier has none for these two): the method is the type name in capitals.
enum Trace: HTTPMethodMarker {}
enum Connect: HTTPMethodMarker {}

var generator = Generator(random: SplitMix64(seed: seed))
var ok = 0
var rejected = 0
var failures = 0
/// Rejections by the oracle's first reason, for --verbose.
var reasons: [String: Int] = [:]
let start = Date()

@MainActor func report(_ index: Int, _ fuzzCase: FuzzCase, _ message: String) {
    failures += 1
    guard failures <= 20 else { return }
    say("FAILURE case \(index): \(fuzzCase.method.rawValue) \(fuzzCase.template.debugDescription.prefix(200))")
    say("  \(message.prefix(400))")
    say("  parameters: \(String(describing: fuzzCase.parameters).prefix(600))")
    say("  encoding: \(String(describing: fuzzCase.encoding)), options: \(fuzzCase.configurationOptions)")
}

for index in 0..<cases {
    let fuzzCase = generator.makeCase()
    let oracle = Oracle(fuzzCase)
    var configuration = APIConfiguration(baseURL: URL(string: Oracle.base))
    configuration.parameterOptions = fuzzCase.configurationOptions
    do {
        let request = try run(fuzzCase, configuration)
        if !oracle.mustFail.isEmpty {
            report(index, fuzzCase, "built although it must fail: \(oracle.mustFail.joined(separator: ", "))")
        } else if let problem = oracle.verify(request) {
            report(index, fuzzCase, "does not round-trip: \(problem)\n  URL: \(request.url.absoluteString.prefix(300))")
        } else {
            ok += 1
        }
    } catch {
        let prefix = "\(fuzzCase.method.rawValue) \(fuzzCase.template): "
        if !error.description.hasPrefix(prefix) {
            report(index, fuzzCase, "error does not name the endpoint: \(error.description.prefix(300))")
        } else if oracle.mustFail.isEmpty, !oracle.mayFail {
            report(
                index, fuzzCase,
                "rejected valid input: \(error.description.prefix(300)) \(error.underlyingError.map { "\($0)" } ?? "")")
        } else {
            rejected += 1
            let reason = oracle.mustFail.first.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
            reasons[reason ?? "at the depth limit", default: 0] += 1
            if verbose { say("rejected case \(index): \(error.description.prefix(200))") }
        }
    }
    if verbose, index % 100_000 == 0 { say("… \(index) cases") }
}

if verbose {
    for (reason, count) in reasons.sorted(by: { $0.value > $1.value }) { say("  rejected: \(count) \(reason)") }
}
let seconds = Date().timeIntervalSince(start)
say("cases=\(cases) ok=\(ok) rejected=\(rejected) failures=\(failures) seed=\(seed) seconds=\(Int(seconds.rounded()))")
exit(failures == 0 ? 0 : 1)
