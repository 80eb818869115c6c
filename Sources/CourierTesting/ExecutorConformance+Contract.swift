import Courier
import Foundation

// The checks themselves, one method per ``ExecutorConformance/Check``.
extension ExecutorConformance.Context {
    // MARK: - Requests and responses

    func methodsAndBodies() async {
        let httpbin = servers.httpbin
        for method in [HTTPMethod.get, .delete] {
            let call = Call(
                method: method, base: httpbin, target: "/anything?probe=1", headers: ["X-Conformance": "\(method)"])
            guard let response = await response(call), let echo = json(response, call.label) else { continue }
            expect(response.statusCode == 200, "\(call.label): status \(response.statusCode), expected 200")
            expect(
                echo["method"] as? String == method.rawValue,
                "\(call.label): the server saw \(echo["method"] ?? "no method")")
            expect(
                Self.header("X-Conformance", in: echo) == method.rawValue,
                "\(call.label): header X-Conformance arrived as \(Self.header("X-Conformance", in: echo) ?? "nothing")")
            expect(
                response.url?.path == "/anything",
                "\(call.label): response URL \(response.url?.absoluteString ?? "nil")")
        }
        let text = #"{"name":"Zoë ✓","count":3}"#
        for method in [HTTPMethod.post, .put, .patch] {
            let call = Call(
                method: method, base: httpbin, target: "/anything", headers: ["Content-Type": "application/json"],
                body: Data(text.utf8))
            guard let response = await response(call), let echo = json(response, call.label) else { continue }
            expect(
                echo["method"] as? String == method.rawValue,
                "\(call.label): the server saw \(echo["method"] ?? "no method")")
            expect(echo["data"] as? String == text, "\(call.label): the server got the body \(echo["data"] ?? "nil")")
            expect(
                Self.header("Content-Type", in: echo) == "application/json",
                "\(call.label): Content-Type arrived as \(Self.header("Content-Type", in: echo) ?? "nothing")")
        }
        let head = Call(method: .head, base: httpbin, target: "/get")
        if let response = await response(head) {
            expect(response.statusCode == 200, "\(head.label): status \(response.statusCode)")
            expect(response.data.isEmpty, "\(head.label): a HEAD response with \(response.data.count) body bytes")
        }
    }

    func repeatedRequestHeaders() async {
        var headers = HTTPHeaders()
        headers.add("X-Multi", "first")
        headers.add("X-Multi", "second")
        let call = Call(base: servers.httpbin, target: "/headers", headers: headers)
        guard let response = await response(call), let echo = json(response, call.label) else { return }
        let arrived = Self.header("X-Multi", in: echo)
        expect(
            Self.values(arrived.map { [$0] } ?? []) == ["first", "second"],
            "\(call.label): X-Multi: first and X-Multi: second arrived as \(arrived ?? "nothing")")
    }

    func repeatedResponseHeaders() async {
        let call = Call(base: servers.httpbin, target: "/response-headers?X-Multi=first&X-Multi=second")
        guard let response = await response(call) else { return }
        let fields = response.headers.values(for: "x-multi")
        expect(
            Self.values(fields) == ["first", "second"],
            "\(call.label): the response's X-Multi fields came back as \(fields)")
    }

    func statusCodesPassedThrough() async {
        for code in [200, 201, 202, 400, 401, 403, 404, 409, 418, 429, 500, 502, 503] {
            let call = Call(base: servers.httpbin, target: "/status/\(code)")
            guard let response = await response(call) else { continue }
            expect(response.statusCode == code, "\(call.label): status \(response.statusCode)")
        }
    }

    func emptyBodies() async {
        let calls = [
            Call(base: servers.httpbin, target: "/status/204"),
            Call(method: .head, base: servers.httpbin, target: "/bytes/64"),
            Call(base: servers.httpbin, target: "/bytes/0"),
            Call(base: servers.faultServer, target: "/no-content-with-body"),
        ]
        let expected = [204, 200, 200, 204]
        for (call, status) in zip(calls, expected) {
            guard let response = await response(call) else { continue }
            expect(response.statusCode == status, "\(call.label): status \(response.statusCode), expected \(status)")
            expect(response.data.isEmpty, "\(call.label): \(response.data.count) body bytes, expected none")
        }
    }

    // MARK: - Redirects

    func redirectsFollowed() async {
        let httpbin = servers.httpbin
        for target in ["/redirect/3", "/relative-redirect/2", "/absolute-redirect/2"] {
            let call = Call(base: httpbin, target: target)
            guard let response = await response(call) else { continue }
            expect(response.statusCode == 200, "\(call.label): status \(response.statusCode) at the end")
            expect(response.url?.path == "/get", "\(call.label): ended at \(response.url?.absoluteString ?? "nil")")
        }
        let text = "conformance body"
        for (status, method, body) in [(307, "POST", text), (308, "POST", text), (303, "GET", "")] {
            let call = Call(
                method: .post, base: httpbin, target: "/redirect-to?url=/anything&status_code=\(status)",
                headers: ["Content-Type": "text/plain"], body: Data(text.utf8))
            guard let response = await response(call), let echo = json(response, call.label) else { continue }
            expect(echo["method"] as? String == method, "\(call.label): continued as \(echo["method"] ?? "nothing")")
            expect(echo["data"] as? String == body, "\(call.label): continued with the body \(echo["data"] ?? "nil")")
        }
    }

    func redirectsNotFollowed() async {
        let policies: [(String, RedirectPolicy)] = [
            ("doNotFollow", .doNotFollow), ("a custom policy that stops", .custom { _ in .stop }),
        ]
        for (name, policy) in policies {
            let call = Call(
                base: servers.httpbin, target: "/redirect-to?url=/get&status_code=302", redirectPolicy: policy)
            guard let response = await response(call) else { continue }
            expect(
                response.statusCode == 302, "\(call.label) with \(name): status \(response.statusCode), expected 302")
            expect(
                response.headers[.location] == "/get",
                "\(call.label) with \(name): Location \(response.headers[.location] ?? "missing")")
        }
    }

    func redirectCredentialsRemoved() async {
        let secrets: [(name: HTTPHeaderName, value: String)] = [
            (.authorization, "Bearer conformance-token"), (.cookie, "session=conformance-cookie"),
            ("X-API-Key", "conformance-key"), ("X-Session", "conformance-session"),
        ]
        var headers: HTTPHeaders = ["X-Trace": "kept"]
        for secret in secrets { headers[secret.name] = secret.value }
        let fault = servers.faultServer.absoluteString
        let hops: [(name: String, to: String, crossOrigin: Bool)] = [
            ("same origin", "/headers", false),
            ("another host", Self.join(servers.faultServerOtherHost, "/headers"), true),
            ("another port", Self.join(servers.faultServerOtherPort, "/headers"), true),
        ]
        for hop in hops {
            let to = hop.to
            let call = Call(
                base: servers.faultServer, target: "/redirect?status=302&to=\(Self.query(to))", headers: headers,
                sensitiveNames: ["X-Session"])
            guard let response = await response(call), let echo = json(response, "\(call.label) (\(hop.name))") else {
                continue
            }
            if hop.crossOrigin {
                expect(
                    response.url.map { $0.absoluteString.hasPrefix(fault) } == false,
                    "\(call.label) (\(hop.name)): the redirect to \(to) was not followed")
            }
            for secret in secrets {
                let arrived = Self.header(secret.name.rawValue, in: echo)
                if secret.name == .cookie {
                    // The executor's cookie store may add cookies of its own for the hop (RFC 6265: by domain and
                    // path, whatever the port) to the one field: only the request's own pair counts.
                    let pairs = (arrived ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                    if hop.crossOrigin {
                        expect(
                            !pairs.contains(secret.value),
                            "\(call.label): the request's own Cookie pair reached \(hop.name) after a redirect")
                    } else {
                        expect(
                            pairs.contains(secret.value) && pairs.count(where: { $0.hasPrefix("session=") }) == 1,
                            "\(call.label): Cookie was lost or doubled on a same-origin redirect (\(arrived ?? "missing"))"
                        )
                    }
                } else if hop.crossOrigin {
                    expect(arrived == nil, "\(call.label): \(secret.name) reached \(hop.name) after a redirect")
                } else {
                    expect(
                        arrived == secret.value,
                        "\(call.label): \(secret.name) was lost on a same-origin redirect (\(arrived ?? "missing"))")
                }
            }
            expect(
                Self.header("X-Trace", in: echo) == "kept",
                "\(call.label) (\(hop.name)): the non-secret X-Trace header was dropped")
        }
    }

    func redirectsRefused() async {
        let loop = Call(
            base: servers.faultServer, target: "/redirect-loop",
            redirectPolicy: .custom(maxRedirects: 3) { _ in .follow })
        if let error = await error(loop) {
            expect(
                error.reason == .transport(.redirectRefused(.tooManyRedirects)),
                "\(loop.label) with maxRedirects 3: \(error.reason), expected too many redirects")
        }
        let endless = Call(base: servers.faultServer, target: "/redirect-loop")
        if let error = await error(endless) {
            expect(
                error.reason == .transport(.redirectRefused(.tooManyRedirects)),
                "\(endless.label) with .follow: \(error.reason), expected too many redirects")
        }
        let refused = Call(base: servers.httpbin, target: "/redirect/1", redirectPolicy: .custom { _ in .refuse })
        if let error = await error(refused) {
            expect(
                error.reason == .transport(.redirectRefused(.refusedByPolicy)),
                "\(refused.label) with a refusing policy: \(error.reason)")
        }
    }

    // MARK: - Time

    func timeoutIsDeadline() async {
        // Each call with how long the server takes to answer in full, far beyond the bound. An enforced deadline
        // ends the call within half the timeout plus 1.5 s: a 2-core machine under ThreadSanitizer or another
        // build is late by up to a few seconds (a timer, closing a connection; 3.1 s seen at a load of 10), while
        // an executor that waits twice the timeout ends after 10 s, past the bound of 9 s.
        let timeout = Duration.seconds(5)
        let calls: [(Call, answered: Duration)] = [
            (Call(base: servers.faultServer, target: "/slow-headers?delay=60", timeout: timeout), .seconds(60)),
            // A byte every 0.2 s keeps an idle timeout from ever firing; a deadline still ends the call.
            (
                Call(base: servers.faultServer, target: "/slow-body?bytes=300&interval=0.2", timeout: timeout),
                .seconds(60)
            ),
        ]
        for (call, answered) in calls {
            let (error, elapsed) = await Self.timed { await self.error(call) }
            guard let error else { continue }
            expect(error.reason == .transport(.timedOut), "\(call.label): \(error.reason), expected timedOut")
            let bound = call.timeout + call.timeout / 2 + .milliseconds(1500)
            expect(
                elapsed >= call.timeout - .milliseconds(100) && elapsed < bound,
                "\(call.label): ended after \(elapsed) with a timeout of \(call.timeout), expected before \(bound) "
                    + "(the server answers after \(answered))"
            )
        }
    }

    func cancellation() async {
        let calls = [
            // Waiting for the head…
            Call(base: servers.faultServer, target: "/slow-headers?delay=10", timeout: .seconds(20)),
            // …and in the middle of the body.
            Call(base: servers.faultServer, target: "/endless-chunked?interval=0.1", timeout: .seconds(20)),
        ]
        for call in calls {
            let task = Task { await self.send(call) }
            try? await Task.sleep(for: .milliseconds(500))
            let cancelled = ContinuousClock.now
            task.cancel()
            let outcome = await task.value
            let elapsed = ContinuousClock.now - cancelled
            // Well below the 10 s the server would still take (generous: a loaded machine is slow, not 5 s slow).
            expect(elapsed < .seconds(5), "\(call.label): ended \(elapsed) after it was cancelled")
            switch outcome {
            case .success(let response):
                fail("\(call.label): returned status \(response.statusCode) after it was cancelled")
            case .failure(let error):
                expect(error.reason == .transport(.cancelled), "\(call.label): \(error.reason), expected cancelled")
            case nil: break
            }
        }
        // A call started in a task that is already cancelled.
        let early = Call(base: servers.httpbin, target: "/get")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await self.send(early)
        }
        switch await task.value {
        case .success(let response):
            fail("\(early.label): returned status \(response.statusCode) in a cancelled task")
        case .failure(let error):
            expect(error.reason == .transport(.cancelled), "\(early.label) in a cancelled task: \(error.reason)")
        case nil:
            break
        }
    }

    // MARK: - Limits and failures

    func sizeLimit() async {
        let limit = 100_000
        for target in ["/big?bytes=300000", "/big-chunked?bytes=300000"] {
            let call = Call(base: servers.faultServer, target: target, maxResponseBytes: limit)
            if let error = await error(call) {
                expect(
                    error.reason == .transport(.responseTooLarge),
                    "\(call.label) with a limit of \(limit): \(error.reason), expected responseTooLarge")
            }
        }
        let fits = Call(base: servers.faultServer, target: "/big?bytes=\(limit)", maxResponseBytes: limit)
        if let response = await response(fits) {
            expect(response.data.count == limit, "\(fits.label): \(response.data.count) bytes, expected \(limit)")
        }
        // A HEAD answer, a 204 and a 304 have no body, whatever Content-Length says: never too large.
        let head = Call(method: .head, base: servers.httpbin, target: "/bytes/50000", maxResponseBytes: 10_000)
        if let response = await response(head) {
            expect(response.statusCode == 200, "\(head.label) with a limit of 10000: status \(response.statusCode)")
            expect(response.data.isEmpty, "\(head.label): \(response.data.count) body bytes for a HEAD")
        }
        // 64 MiB of zeros, about 64 KiB gzipped: decoded, it crosses the limit; not decoded, it stays under.
        let bomb = Call(base: servers.faultServer, target: "/gzip-bomb?mb=64", maxResponseBytes: 1 << 20)
        switch await send(bomb) {
        case .success(let response):
            expect(
                response.data.count <= 1 << 20,
                "\(bomb.label): returned \(response.data.count) bytes over a 1 MiB limit")
        case .failure(let error):
            expect(
                error.reason == .transport(.responseTooLarge),
                "\(bomb.label): \(error.reason), expected responseTooLarge")
        case nil: break
        }
    }

    func transportErrors() async {
        if let port = RefusingPort() {
            if let base = URL(string: "http://127.0.0.1:\(port.number)") {
                let call = Call(base: base, target: "/get", timeout: .seconds(5))
                if let error = await error(call) {
                    expect(
                        error.reason == .transport(.cannotConnect),
                        "a refused connection: \(error.reason), expected cannotConnect")
                }
            }
            withExtendedLifetime(port) {}
        } else {
            fail("could not bind a local port to refuse connections")
        }
        // 10 of 100 bytes, then a clean close: never a success, and a lost connection like a reset (retryable). These
        // calls fail on their own long before their 20 s timeout (a loaded 2-core machine once ran past 5 s).
        if let error = await error(Call(base: servers.faultServer, target: "/truncated", timeout: .seconds(20))) {
            expect(
                error.reason == .transport(.connectionLost),
                "a body cut short by a clean close: \(error.reason), expected connectionLost")
        }
        await expectPromptTransportError(
            Call(base: servers.faultServer, target: "/garbage-status", timeout: .seconds(20)))
    }

    func bareStatusLine() async {
        await expectPromptTransportError(Call(base: servers.faultServer, target: "/bare-status", timeout: .seconds(20)))
    }

    /// Expects `call` to fail with a transport reason of its own, not by running into its timeout.
    private func expectPromptTransportError(_ call: Call) async {
        guard let error = await error(call) else { return }
        switch error.reason.transportProblem {
        case .timedOut?, .cancelled?:
            fail("\(call.label): \(error.reason); expected the broken response to fail on its own")
        case nil:
            fail("\(call.label): \(error.reason), expected a transport error")
        default:
            break
        }
    }

    func concurrency() async {
        let results = await withTaskGroup(of: (Int, Result<APIResponse, APIError>?).self) { group in
            for number in 0..<64 {
                group.addTask {
                    let call = Call(
                        base: self.servers.httpbin, target: "/anything?call=\(number)",
                        headers: ["X-Call": "\(number)"],
                        timeout: .seconds(20))
                    return (number, await self.send(call))
                }
            }
            var results: [(Int, Result<APIResponse, APIError>?)] = []
            for await result in group { results.append(result) }
            return results
        }
        var wrong = 0
        for (number, outcome) in results {
            guard case .success(let response) = outcome else {
                if case .failure(let error) = outcome { fail("call \(number) of 64: \(error.reason) (\(error))") }
                continue
            }
            let echo = try? JSONSerialization.jsonObject(with: response.data) as? [String: Any]
            let args = echo?["args"] as? [String: Any]
            if args?["call"] as? String != "\(number)" || echo.flatMap({ Self.header("X-Call", in: $0) }) != "\(number)"
            {
                wrong += 1
            }
        }
        expect(results.count == 64, "\(results.count) of 64 calls ended")
        expect(wrong == 0, "\(wrong) of 64 concurrent calls got another call's response (or none)")
    }
}
