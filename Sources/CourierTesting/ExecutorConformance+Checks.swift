import Courier
import Foundation

extension ExecutorConformance {
    /// One run of one check: sends its requests through the executor and records what went wrong.
    final class Context: Sendable {
        let check: Check
        let executor: any APIExecutor
        let servers: Servers
        private let recorded = LockedBox<[Failure]>([])

        init(check: Check, executor: any APIExecutor, servers: Servers) {
            self.check = check
            self.executor = executor
            self.servers = servers
        }

        /// What the check found wrong so far.
        var failures: [Failure] { recorded.withLock { $0 } }

        func fail(_ message: String) {
            recorded.withLock { $0.append(Failure(check: check, message: message)) }
        }

        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { fail(message()) }
        }

        func run() async {
            switch check {
            case .methodsAndBodies: await methodsAndBodies()
            case .repeatedRequestHeaders: await repeatedRequestHeaders()
            case .repeatedResponseHeaders: await repeatedResponseHeaders()
            case .statusCodesPassedThrough: await statusCodesPassedThrough()
            case .emptyBodies: await emptyBodies()
            case .redirectsFollowed: await redirectsFollowed()
            case .redirectsNotFollowed: await redirectsNotFollowed()
            case .redirectCredentialsRemoved: await redirectCredentialsRemoved()
            case .redirectsRefused: await redirectsRefused()
            case .timeoutIsDeadline: await timeoutIsDeadline()
            case .cancellation: await cancellation()
            case .sizeLimit: await sizeLimit()
            case .transportErrors: await transportErrors()
            case .bareStatusLine: await bareStatusLine()
            case .concurrency: await concurrency()
            case .fileAndStreamBodies: await fileAndStreamBodies()
            case .multipartBody: await multipartBody()
            case .streamedResponse:
                await streamedResponse()
                await webSockets()
            case .downloadToFile: await downloadToFile()
            case .downloadIdleTimeout: await downloadIdleTimeout()
            case .progressReported: await progressReported()
            case .redirectedUploads: await redirectedUploads()
            case .secretsStayMasked: await secretsStayMasked()
            }
        }

        // MARK: - Sending

        /// One request as the executor sees it.
        struct Call: Sendable {
            var method: HTTPMethod = .get
            var base: URL
            var target: String
            var headers: HTTPHeaders = [:]
            var body: Data?
            var timeout: Duration = .seconds(10)
            var redirectPolicy: RedirectPolicy = .follow
            var maxResponseBytes = APIConfiguration.defaultMaxResponseBytes
            var sensitiveNames: Set<HTTPHeaderName> = []

            /// `METHOD target`, for messages.
            var label: String { "\(method) \(target)" }
        }

        /// Sends `call` through the executor: the response, or the error as Courier classifies it; `nil` (after
        /// recording a failure) when the call's URL is invalid.
        func send(_ call: Call) async -> Result<APIResponse, APIError>? {
            guard let url = URL(string: Self.join(call.base, call.target)) else {
                fail("\(call.label): not a valid URL")
                return nil
            }
            let request = APIRequest(
                method: call.method,
                url: url,
                headers: call.headers,
                body: call.body.map { RequestBody.data($0) } ?? .empty,
                timeout: call.timeout,
                redirectPolicy: call.redirectPolicy,
                maxResponseBytes: call.maxResponseBytes,
                sensitiveNames: call.sensitiveNames,
                endpoint: Self.endpoint(call.method, path: url.path)
            )
            do {
                return .success(try await executor.execute(request))
            } catch {
                return .failure(APIError.wrapping(error, request: request))
            }
        }

        /// Sends `call` and returns the response; records a failure when it is an error instead.
        func response(_ call: Call) async -> APIResponse? {
            switch await send(call) {
            case .success(let response): return response
            case .failure(let error):
                fail("\(call.label): expected a response, got \(error.reason) (\(error))")
                return nil
            case nil: return nil
            }
        }

        /// Sends `call` and returns the error; records a failure when a response arrived instead.
        func error(_ call: Call) async -> APIError? {
            switch await send(call) {
            case .success(let response):
                fail("\(call.label): expected an error, got status \(response.statusCode)")
                return nil
            case .failure(let error): return error
            case nil: return nil
            }
        }

        /// An endpoint description for requests built by hand (errors name it).
        static func endpoint(_ method: HTTPMethod, path: String) -> APIEndpoint {
            switch method {
            case .post: POST<Void>(path).endpoint
            case .put: PUT<Void>(path).endpoint
            case .patch: PATCH<Void>(path).endpoint
            case .delete: DELETE<Void>(path).endpoint
            case .head: HEAD<Void>(path).endpoint
            default: GET<Void>(path).endpoint
            }
        }

        /// The response body as a JSON object.
        func json(_ response: APIResponse, _ label: String) -> [String: Any]? {
            guard let object = try? JSONSerialization.jsonObject(with: response.data) as? [String: Any] else {
                fail(
                    "\(label): the body is not a JSON object (\(response.data.count) bytes, status \(response.statusCode))"
                )
                return nil
            }
            return object
        }

        /// The header `name` of an echo's `headers` object, whatever the case of the name.
        static func header(_ name: String, in echo: [String: Any]) -> String? {
            let headers = echo["headers"] as? [String: Any] ?? [:]
            return headers.first { $0.key.lowercased() == name.lowercased() }?.value as? String
        }

        /// `base` without a trailing slash, then `target` (a path and query).
        static func join(_ base: URL, _ target: String) -> String {
            var text = base.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return text + target
        }

        /// `value` percent-encoded for a query string.
        static func query(_ value: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~/:")
            return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
        }

        /// The comma-separated values of all fields `name`: `a, b` as one field or as two both give `[a, b]`.
        static func values(_ fields: [String]) -> [String] {
            fields.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        }

        /// Runs `operation` and returns its result with how long it took.
        static func timed<Value>(_ operation: () async -> Value) async -> (Value, Duration) {
            let start = ContinuousClock.now
            let value = await operation()
            return (value, ContinuousClock.now - start)
        }
    }
}
