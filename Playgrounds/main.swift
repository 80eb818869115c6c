// Courier's playground: runnable pages that declare endpoints and call them, printing what they send and what
// they get. Start with Basics.swift and read the pages in the order below.
//
//   scripts/playground                      every page against a local httpbin (the script starts one)
//   scripts/playground --offline            every page against OfflineServer.swift, no network
//   scripts/playground --page Plugins       one page (works with --offline too)
import Courier
import Foundation

/// A page: a name for `--page`, one line saying what it shows, and the code that runs it.
struct Page {
    let name: String
    let summary: String
    let run: @MainActor (Stage) async throws -> Void
}

let pages = [
    Page(
        name: "Basics",
        summary: "Declare endpoints in an address book, call them with typed parameters.",
        run: BasicsPage.run
    ),
    Page(
        name: "Parameters",
        summary: "Paths, query, JSON and form bodies, value options and headers.",
        run: ParametersPage.run
    ),
    Page(
        name: "Responses",
        summary: "Decode what comes back, and handle every way a call can fail.",
        run: ResponsesPage.run
    ),
    Page(
        name: "Executors",
        summary: "Swap what sends requests: per call, per task, globally.",
        run: ExecutorsPage.run
    ),
    Page(
        name: "Plugins",
        summary: "Auth, retry, logging with redaction, refreshing tokens, envelopes.",
        run: PluginsPage.run
    ),
    Page(
        name: "Governor",
        summary: "Protect an upstream: a circuit breaker, a retry budget, a concurrency limit, a shared Retry-After.",
        run: GovernorPage.run
    ),
    Page(
        name: "Observing",
        summary: "Each call's timeline: attempts, retries, redirects, cache decisions; observers on the configuration.",
        run: ObservingPage.run
    ),
    Page(
        name: "Caching",
        summary: "A memory and disk response cache: read/write modes, expiry, revalidation, de-duplication.",
        run: CachingPage.run
    ),
    Page(
        name: "Transfers",
        summary: "Uploads (raw, file, stream, multipart), downloads to files that resume, byte streams, SSE, progress.",
        run: TransfersPage.run
    ),
    Page(
        name: "Testing",
        summary: "CourierTesting: stubs, recorded requests, errors and delays.",
        run: TestingPage.run
    ),
    Page(
        name: "Cassettes",
        summary: "CourierTesting: record real traffic once (secrets masked), replay it offline.",
        run: CassettesPage.run
    ),
    Page(
        name: "OpenAPI",
        summary: "An address book generated from an OpenAPI description, committed and called like any other.",
        run: OpenAPIPage.run
    ),
    Page(
        name: "Services",
        summary: "Group endpoints behind a small typed client: client.users.get(id:).",
        run: ServicesPage.run
    ),
    Page(
        name: "Swift6",
        summary: "The three ways an address book compiles in Swift 6, and calling it from anywhere.",
        run: Swift6Page.run
    ),
]

let usage = """
    usage: swift run Playground [--offline] [--page NAME] [--list]

      (no option)    run every page against the httpbin at $COURIER_HTTPBIN_URL (scripts/playground sets it)
      --offline      run against a stand-in for httpbin built on CourierTesting's StubExecutor; no network
      --page NAME    run only the page NAME (\(pages.map(\.name).joined(separator: ", ")))
      --list         list the pages
    """

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

// MARK: - Arguments

var isOffline = false
var selected = pages
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--offline":
        isOffline = true
    case "--page":
        guard let name = arguments.popFirst() else { fail("--page needs a page name\n\n\(usage)") }
        guard let page = pages.first(where: { $0.name.lowercased() == name.lowercased() }) else {
            fail("no page named '\(name)'; the pages are: \(pages.map(\.name).joined(separator: ", "))")
        }
        selected = [page]
    case "--list":
        for page in pages { print("\(page.name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(page.summary)") }
        exit(0)
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        fail("unknown argument '\(argument)'\n\n\(usage)")
    }
}

// MARK: - The server

let stage: Stage
if isOffline {
    guard let url = OfflineServer.baseURL else { fail("the offline base URL is invalid", status: 1) }
    stage = Stage(isOffline: true, baseURL: url, transport: OfflineServer.makeExecutor())
} else {
    let value = ProcessInfo.processInfo.environment["COURIER_HTTPBIN_URL"] ?? ""
    guard !value.isEmpty else {
        fail(
            """
            The playground talks to a real httpbin, and COURIER_HTTPBIN_URL is not set.
              scripts/playground             starts a local httpbin (installed into .venv on first run) and runs every page
              scripts/playground --offline   runs every page against a stand-in, without network
            """,
            status: 1
        )
    }
    guard let url = URL(string: value), url.host != nil else {
        fail("COURIER_HTTPBIN_URL=\(value) is not a URL like http://127.0.0.1:8080", status: 1)
    }
    stage = Stage(isOffline: false, baseURL: url, transport: URLSessionExecutor.shared)
}

// MARK: - Running the pages

print(
    """
    Courier playground: \(selected.count) page\(selected.count == 1 ? "" : "s") against \
    \(stage.isOffline ? "an offline stand-in for httpbin (OfflineServer.swift)" : "httpbin") at \(stage.baseURL.absoluteString)
    Legend: • step   → request sent   ← response received   = outcome   ✗ error (expected, caught)   · note
    Demo credentials are printed as ***.
    """
)

let clock = ContinuousClock()
let start = clock.now
var failed: [String] = []
for page in selected {
    // Every page starts from the same process-wide default (the Executors page changes it, then restores it).
    APIConfiguration.default = stage.configuration
    Console.heading(page.name, page.summary)
    do {
        try await page.run(stage)
    } catch {
        failed.append(page.name)
        Console.line("\n!! The \(page.name) page stopped on an unexpected error: \(error)")
        if !stage.isOffline, (error as? APIError)?.reason == .transport(.cannotConnect) {
            Console.line("!! Is httpbin running at \(stage.baseURL.absoluteString)? scripts/playground starts one.")
        }
    }
}

let elapsed = Double(Console.milliseconds(clock.now - start)) / 1000
print("\n" + String(repeating: "━", count: 76))
if failed.isEmpty {
    print("All \(selected.count) page\(selected.count == 1 ? "" : "s") ran without unexpected errors in \(elapsed) s.")
} else {
    print("\(failed.count) of \(selected.count) pages failed: \(failed.joined(separator: ", ")) (\(elapsed) s).")
    exit(1)
}
