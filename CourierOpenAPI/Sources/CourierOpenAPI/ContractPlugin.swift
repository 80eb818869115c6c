import Courier
import Foundation

/// A break of the contract a description states: which operation, where (`request.query.limit`,
/// `response.body[0].id`, `response.status`), and which rule (`operation`, `required`, `type`, `enum`, `format`,
/// `status`, …). In strict mode it is the underlying error of the ``Courier/APIError`` the call throws.
public struct ContractViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation: its `operationId` and method and path, or the request's method and path when none matched.
    public let operation: String
    /// Where in the request or response.
    public let location: String
    /// The rule that was broken.
    public let rule: String
    /// What was wrong, without header values or credentials.
    public let message: String

    /// `operation: location: message [rule]`.
    public var description: String { "\(operation): \(location): \(message) [\(rule)]" }
}

/// Validates live traffic against a description: each request must match an operation (method and path
/// template), set its required query items and headers, and send a body that fits the request body's schema;
/// each response's status must be one the operation declares, and a JSON body must fit that status's schema
/// (types, required properties, enums, formats).
///
/// ```swift
/// var configuration = APIConfiguration.petstore()
/// configuration.plugins.append(ContractPlugin.contract(description))            // strict: a violation throws
/// let report = ContractPlugin.contract(description, mode: .report)             // report: collect and log
/// ```
///
/// In ``Mode/strict`` mode a violation fails the call with an ``Courier/APIError`` whose reason is
/// ``Courier/APIError/Reason/other`` and whose `underlyingError` is the ``ContractViolation``; a request that breaks
/// the contract fails before it is sent. In ``Mode/report`` mode calls go on, and ``violations`` collects what
/// broke (each one also goes to the `log` closure). Meant for tests and debug builds: it parses every JSON body.
public struct ContractPlugin: APIPlugin {
    /// What a violation does.
    public enum Mode: Sendable {
        /// Collect and log, and let the call go on.
        case report
        /// Fail the call with an ``Courier/APIError`` naming the violation.
        case strict
    }

    /// The description traffic is checked against.
    public let document: OpenAPIDescription
    /// What a violation does.
    public let mode: Mode
    private let log: @Sendable (ContractViolation) -> Void
    private let store = ViolationStore()

    /// A plugin for `document`; `log` receives each violation (by default, a line on standard error).
    public init(
        _ document: OpenAPIDescription, mode: Mode = .strict,
        log: @escaping @Sendable (ContractViolation) -> Void = { violation in
            FileHandle.standardError.write(Data("courier-openapi contract: \(violation)\n".utf8))
        }
    ) {
        self.document = document
        self.mode = mode
        self.log = log
    }

    /// Every violation seen so far, in order.
    public var violations: [ContractViolation] { store.all }

    /// Checks the request, runs the rest of the chain, checks the response.
    public func intercept(_ request: APIRequest, next: APIPluginNext) async throws -> APIResponse {
        let checker = ContractChecker(description: document)
        let (operation, requestViolations) = checker.check(request)
        try record(requestViolations, request: request, response: nil)
        let response = try await next(request)
        if let operation {
            try record(checker.check(response, of: operation), request: request, response: response)
        }
        return response
    }

    private func record(_ found: [ContractViolation], request: APIRequest, response: APIResponse?) throws(APIError) {
        guard let first = found.first else { return }
        store.append(found)
        for violation in found { log(violation) }
        if mode == .strict {
            throw APIError(
                .other, endpoint: request.endpoint, request: request, response: response, underlyingError: first)
        }
    }
}

extension APIPlugin where Self == ContractPlugin {
    /// A ``ContractPlugin`` that checks requests and responses against `document`.
    public static func contract(_ document: OpenAPIDescription, mode: ContractPlugin.Mode = .strict) -> ContractPlugin {
        ContractPlugin(document, mode: mode)
    }
}

/// The violations a plugin has seen: appended from any task, read from tests. One lock guards one array.
private final class ViolationStore: @unchecked Sendable {
    private let lock = NSLock()
    private var violations: [ContractViolation] = []

    func append(_ new: [ContractViolation]) { lock.withLock { violations += new } }

    var all: [ContractViolation] { lock.withLock { violations } }
}
