import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ExecutorConformance.Context {
    /// The secret scan: a secret planted in every place a call can carry one, then every printable surface
    /// searched for it. Each planted value contains `SECRET`; nothing else the calls send or print does.
    func secretsStayMasked() async {
        let fault = servers.faultServer
        guard var authority = URLComponents(url: fault, resolvingAgainstBaseURL: false) else {
            return fail("the fault server's URL \(fault) has no host")
        }
        authority.user = "bob"
        authority.password = "us3rinfo-SECRET"
        authority.path = ""
        guard let withUser = authority.string, let refused = RefusingPort() else {
            return fail("could not build the URLs of the scan")
        }
        let refusedBase = "http://bob:us3rinfo-SECRET@127.0.0.1:\(refused.number)"
        defer { withExtendedLifetime(refused) {} }  // the port stays refused until the scan ends
        let scan = SecretScan(executor: executor, faultServer: fault)
        defer { try? FileManager.default.removeItem(at: scan.cassetteFile) }

        // Every place a secret can be declared: a path template's query, an absolute URL (with user info), a
        // query item, a header, a cookie (the configuration's), a body member, and a redirect's target.
        let templateQuery = GET<String>(
            wrappedValue: .init { ["q": $0, "api_key": "qu3ry-SECRET"] },
            "/headers?X-Amz-Credential=t3mplate-SECRET&page=1",
            headerBuilder: { _ in ["Authorization": "Bearer h3ader-SECRET"] })
        let absolute = GET<Void>("\(withUser)/headers?X-Amz-Signature=abs0lute-SECRET&part=1")
        let body = POST<String>(wrappedValue: .init { ["user": $0, "password": "b0dy-SECRET"] }, "/headers")
        let redirect = GET<Void>("/redirect-presigned")
        let unauthorized = GET<Void>(
            "/status/401?X-Amz-Signature=st4tus-SECRET", headers: ["X-Auth-Token": "st4tus-t0ken-SECRET"])
        let unreachable = GET<Void>("\(refusedBase)/r.pdf?X-Amz-Signature=unre4chable-SECRET")

        let configuration = scan.configuration
        await scan.collect { () async throws(APIError) in
            try await templateQuery.request(with: "shoes", using: configuration)
        }
        await scan.collect { () async throws(APIError) in try await absolute.request(using: configuration) }
        await scan.collect { () async throws(APIError) in try await body.request(with: "ann", using: configuration) }
        await scan.collect { () async throws(APIError) in try await redirect.request(using: configuration) }
        await scan.collect { () async throws(APIError) in try await unauthorized.request(using: configuration) }
        await scan.collect { () async throws(APIError) in try await unreachable.request(using: configuration) }
        do {
            let _: [Int] = try await body.request(with: "ann", using: configuration)
        } catch {
            scan.calls.withLock { $0.errors.append(error) }
        }
        if let built = try? templateQuery.makeRequest(with: "shoes", using: configuration) {
            scan.calls.withLock { $0.requests.append(built) }
        }
        let calls = scan.calls.value
        expect(
            calls.responses.count == 4,
            "expected 4 responses (template, absolute, body, redirect), got \(calls.responses.count)")
        expect(calls.errors.count == 3, "expected 3 errors (401, refused, undecodable), got \(calls.errors.count)")
        if let final = calls.responses.last?.url?.absoluteString {
            expect(final.contains("/headers"), "the redirect to a pre-signed URL was not followed (ended at \(final))")
        }
        let endpoints = [
            templateQuery.endpoint, absolute.endpoint, body.endpoint, unauthorized.endpoint, redirect.endpoint,
            unreachable.endpoint,
        ]
        expect(scan.timelines.value.count >= 7, "expected a timeline per call, got \(scan.timelines.value.count)")
        expect(scan.log.value.contains { $0.contains("***") }, "the log holds no mask: it printed nothing to scan")
        for surface in surfaces(of: scan, endpoints: endpoints) {
            let leaks = Self.plantedSecrets(in: surface.text)
            expect(leaks.isEmpty, "\(surface.name) prints \(leaks.joined(separator: ", ")):\n\(surface.text)")
        }
    }

    /// Every printable surface of the scan's calls: the endpoints, requests, responses and errors as printed, the
    /// timelines, the log and the cassette file.
    private func surfaces(of scan: SecretScan, endpoints: [APIEndpoint]) -> [(name: String, text: String)] {
        let calls = scan.calls.value
        var surfaces: [(name: String, text: String)] = []
        for endpoint in endpoints {
            surfaces.append(("endpoint \(endpoint)", Self.printed(endpoint)))
        }
        for (index, request) in (calls.requests + calls.responses.map(\.request)).enumerated() {
            surfaces.append(("request \(index)", Self.printed(request) + "\n" + request.debugDetails()))
        }
        for (index, response) in calls.responses.enumerated() {
            surfaces.append(("response \(index)", Self.printed(response) + "\n" + response.debugDetails()))
        }
        for (index, error) in calls.errors.enumerated() {
            let texts = [
                Self.printed(error), error.localizedDescription, error.debugDetails(), error.bodyExcerpt ?? "",
            ]
            surfaces.append(("error \(index) (\(error.reason))", texts.joined(separator: "\n")))
        }
        for (index, timeline) in scan.timelines.value.enumerated() {
            let details = timeline.events.compactMap(\.detail).joined(separator: "\n")
            surfaces.append(("timeline \(index)", timeline.description + "\n" + details))
        }
        surfaces.append(("log", scan.log.value.joined(separator: "\n")))
        if let recorded = try? String(contentsOf: scan.cassetteFile, encoding: .utf8) {
            surfaces.append(("cassette", recorded))
        } else {
            fail("the cassette recorded nothing at \(scan.cassetteFile.path)")
        }
        return surfaces
    }

    /// The planted secrets in `text`: each word that contains `SECRET`.
    static func plantedSecrets(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let range = rest.range(of: "SECRET") {
            let start =
                rest[..<range.lowerBound].lastIndex { $0.isWhitespace || "'\"=:&?,[]()/@".contains($0) }
                .map(rest.index(after:)) ?? rest.startIndex
            found.append(String(rest[start..<range.upperBound]))
            rest = rest[range.upperBound...]
        }
        return found
    }

    /// Every way `value` prints: `description`, `debugDescription`, `dump` and its mirror's children.
    static func printed(_ value: Any) -> String {
        var dumped = ""
        dump(value, to: &dumped)
        let mirror = Mirror(reflecting: value).children.map { "\($0.label ?? "-"): \($0.value)" }
        return ([String(describing: value), String(reflecting: value), dumped] + mirror).joined(separator: "\n")
    }
}

/// Keeps the timeline of every call that finishes.
/// What the secret scan calls with and what it collects: a configuration that records through a cassette, logs
/// everything (headers, bodies, cURL) and observes every timeline; the requests, responses and errors of its calls.
private struct SecretScan {
    struct Calls {
        var requests: [APIRequest] = []
        var responses: [APIResponse] = []
        var errors: [APIError] = []
    }

    let log = LockedBox<[String]>([])
    let timelines = LockedBox<[CallTimeline]>([])
    let calls = LockedBox(Calls())
    let cassetteFile = FileManager.default.temporaryDirectory
        .appendingPathComponent("courier-conformance-secrets-\(UUID().uuidString).har")
    let configuration: APIConfiguration

    init(executor: any APIExecutor, faultServer: URL) {
        let cassette = Cassette(cassetteFile, mode: .all, recordingWith: executor, recordsInCI: true)
        var configuration = APIConfiguration(baseURL: faultServer).with { $0.executor = cassette }
        configuration.headers = ["Cookie": "session=c00kie-SECRET"]
        configuration.observers = [SecretScanObserver(timelines: timelines)]
        let log = self.log
        configuration.plugins = [
            .logging(LoggingPlugin.Options(includeBodies: true, includeHeaders: true, includeCURL: true)) { line in
                log.withLock { $0.append(line) }
            }
        ]
        self.configuration = configuration
    }

    /// Makes one call; keeps its response, or its error.
    func collect(_ call: () async throws(APIError) -> APIResponse) async {
        do {
            let response = try await call()
            calls.withLock { $0.responses.append(response) }
        } catch {
            calls.withLock { $0.errors.append(error) }
        }
    }
}

private struct SecretScanObserver: CallObserver {
    let timelines: LockedBox<[CallTimeline]>

    func observe(_ event: CallTimeline.Event, in timeline: CallTimeline) {
        guard event.kind == .finished else { return }
        timelines.withLock { $0.append(timeline) }
    }
}
