import Foundation
import Testing

@testable import Courier

/// The reason types are structs with static members, not enums, so that Courier can add a reason without
/// breaking a user's `switch`: a `switch` over them needs a `default:` (the compiler cannot prove it
/// exhaustive), which a test cannot check, so these check what users rely on instead. A reason matches in a
/// `switch` and with `==` as an enum case would, its payload is read through a property, and its description
/// is the same text as before.
@Suite("Error reasons: extensible structs that match like enum cases")
struct ErrorReasonTests {
    /// One value of each reason type, with its type's name.
    static let everyType: [(String, any Sendable)] = [
        ("Reason", APIError.Reason.decodingFailed),
        ("RequestProblem", APIError.RequestProblem.missingBaseURL),
        ("TransportProblem", APIError.TransportProblem.timedOut),
        ("StatusCategory", APIError.StatusCategory.notFound),
        ("RedirectRefusal", RedirectRefusal.tooManyRedirects),
    ]

    @Test("Every reason type is a struct, so a new reason cannot break a user's exhaustive switch")
    func structs() {
        for (name, value) in Self.everyType {
            #expect(Mirror(reflecting: value).displayStyle == .struct, "\(name) is not a struct")
        }
    }

    /// Matches `reason` the way the README and HandlingErrors.md do: payloads written out, then `default`.
    private static func handling(_ reason: APIError.Reason) -> String {
        switch reason {
        case .unacceptableStatus(.notFound): "not found"
        case .unacceptableStatus(.unauthorized): "sign in"
        case .transport(.offline), .transport(.cannotConnect): "offline"
        case .transport(.cancelled): "cancelled"
        case .transport(.redirectRefused(.insecureRedirect)): "insecure redirect"
        case .invalidRequest(.missingPathValue(name: "login")): "no login"
        case .invalidRequest(.unknownHost("uploads")): "no uploads host"
        case .rejectedByService(code: "maintenance", message: nil): "maintenance"
        case .decodingFailed: "decoding"
        case .notCached: "not cached"
        default: "other"
        }
    }

    @Test(
        "A switch matches a reason by its static member and payload, and falls to default for the rest",
        arguments: [
            (APIError.Reason.unacceptableStatus(.notFound), "not found"),
            (.unacceptableStatus(.init(statusCode: 401)), "sign in"),
            (.unacceptableStatus(.serverError), "other"),
            (.transport(.offline), "offline"),
            (.transport(.cannotConnect), "offline"),
            (.transport(.init(URLError(.cancelled))), "cancelled"),
            (.transport(.redirectRefused(.insecureRedirect)), "insecure redirect"),
            (.transport(.redirectRefused(.tooManyRedirects)), "other"),
            (.invalidRequest(.missingPathValue(name: "login")), "no login"),
            (.invalidRequest(.missingPathValue(name: "id")), "other"),
            (.invalidRequest(.unknownHost("uploads")), "no uploads host"),
            (.invalidRequest(.unknownHost("cdn")), "other"),
            (.rejectedByService(code: "maintenance", message: nil), "maintenance"),
            (.rejectedByService(code: "maintenance", message: "back at 6"), "other"),
            (.decodingFailed, "decoding"),
            (.notCached, "not cached"),
            (.other, "other"),
        ])
    func switchMatches(reason: APIError.Reason, handled: String) {
        #expect(Self.handling(reason) == handled)
    }

    @Test("A switch over a problem alone matches its members, with default for the rest")
    func switchOverProblems() {
        func transport(_ problem: APIError.TransportProblem) -> String {
            switch problem {
            case .timedOut: "timed out"
            case .redirectRefused(.refusedByPolicy): "refused"
            default: "other"
            }
        }
        func status(_ category: APIError.StatusCategory) -> String {
            switch category {
            case .badRequest, .notFound: "fix the call"
            case .serverError: "retry"
            default: "other"
            }
        }
        func redirect(_ refusal: RedirectRefusal) -> String {
            switch refusal {
            case .insecureRedirect: "downgrade"
            default: "other"
            }
        }
        #expect(transport(.timedOut) == "timed out")
        #expect(transport(.redirectRefused(.refusedByPolicy)) == "refused")
        #expect(transport(.redirectRefused(.insecureRedirect)) == "other")
        #expect(transport(.connectionLost) == "other")
        #expect(status(.init(statusCode: 400)) == "fix the call")
        #expect(status(.init(statusCode: 404)) == "fix the call")
        #expect(status(.init(statusCode: 503)) == "retry")
        #expect(status(.init(statusCode: 302)) == "other")
        #expect(redirect(.insecureRedirect) == "downgrade")
        #expect(redirect(.tooManyRedirects) == "other")
        if case .transport(.timedOut) = APIError.Reason.transport(.timedOut) {} else { Issue.record("if case") }
    }

    /// Every member of every reason type, each with a payload where it takes one.
    static let reasons: [APIError.Reason] = [
        .invalidRequest(.missingBaseURL), .transport(.timedOut), .unacceptableStatus(.notFound), .decodingFailed,
        .rejectedByService(code: "E1", message: nil), .notCached, .other,
    ]
    static let requestProblems: [APIError.RequestProblem] = [
        .missingPathValue(name: "a"), .invalidPathValue(name: "a"), .unsupportedPathValue(name: "a"),
        .malformedPathTemplate, .invalidHeader(name: "a"), .bodyNotAllowed, .unencodableParameters,
        .unsupportedParameters, .mixedParameters, .missingBaseURL, .unknownHost("a"), .invalidBaseURL, .invalidURL,
        .unreadableBody, .missingParameterBuilder("a"), .unwritableDestination,
    ]
    static let transportProblems: [APIError.TransportProblem] = [
        .timedOut, .cannotConnect, .offline, .cancelled, .connectionLost, .secureConnectionFailed, .responseTooLarge,
        .redirectRefused(.refusedByPolicy), .unsupportedByExecutor, .other,
    ]
    static let statusCategories: [APIError.StatusCategory] = [
        .badRequest, .unauthorized, .forbidden, .notFound, .clientError, .serverError, .unexpected,
    ]
    static let refusals: [RedirectRefusal] = [.insecureRedirect, .tooManyRedirects, .refusedByPolicy]

    @Test("Members are equal only to themselves, with the same payload, and hash alike when equal")
    func equality() {
        func distinct<T: Hashable>(_ values: [T], _ name: String) {
            #expect(Set(values).count == values.count, "\(name) has two equal members")
            for value in values { #expect(Set([value, value]).count == 1) }
        }
        distinct(Self.reasons, "Reason")
        distinct(Self.requestProblems, "RequestProblem")
        distinct(Self.transportProblems, "TransportProblem")
        distinct(Self.statusCategories, "StatusCategory")
        distinct(Self.refusals, "RedirectRefusal")
        distinct(Self.transportProblems.map(APIError.Reason.transport), "Reason.transport")
        #expect(APIError.RequestProblem.missingPathValue(name: "a") != .missingPathValue(name: "b"))
        #expect(APIError.RequestProblem.missingPathValue(name: "a") != .invalidPathValue(name: "a"))
        #expect(APIError.RequestProblem.missingPathValue(name: "a") != .missingParameterBuilder("a"))
        #expect(
            APIError.Reason.rejectedByService(code: "a", message: "m") != .rejectedByService(code: "a", message: nil))
        #expect(APIError.Reason.transport(.other) != .other)
        #expect(APIError.Reason.transport(.init(URLError(.timedOut))) == .transport(.timedOut))
    }

    @Test("A reason's payload is read through its properties, nil for the other members")
    func reasonPayloads() {
        for reason in Self.reasons {
            #expect((reason.requestProblem != nil) == (reason == .invalidRequest(.missingBaseURL)), "\(reason)")
            #expect((reason.transportProblem != nil) == (reason == .transport(.timedOut)), "\(reason)")
            #expect((reason.statusCategory != nil) == (reason == .unacceptableStatus(.notFound)), "\(reason)")
            #expect(
                (reason.serviceRejection != nil) == (reason == .rejectedByService(code: "E1", message: nil)),
                "\(reason)")
        }
        #expect(APIError.Reason.invalidRequest(.missingBaseURL).requestProblem == .missingBaseURL)
        #expect(APIError.Reason.transport(.offline).transportProblem == .offline)
        #expect(APIError.Reason.unacceptableStatus(.forbidden).statusCategory == .forbidden)
        let rejection = APIError.Reason.rejectedByService(code: "E42", message: "quota").serviceRejection
        #expect(rejection?.code == "E42")
        #expect(rejection?.message == "quota")
        #expect(APIError.Reason.rejectedByService(code: "E42", message: nil).serviceRejection?.message == nil)
    }

    @Test("A problem's payload is read through its properties, nil for the other members")
    func problemPayloads() {
        let named: Set<APIError.RequestProblem> = [
            .missingPathValue(name: "a"), .invalidPathValue(name: "a"), .unsupportedPathValue(name: "a"),
            .invalidHeader(name: "a"),
        ]
        for problem in Self.requestProblems {
            #expect(problem.name == (named.contains(problem) ? "a" : nil), "\(problem)")
            #expect(problem.host == (problem == .unknownHost("a") ? "a" : nil), "\(problem)")
            #expect(problem.parameterType == (problem == .missingParameterBuilder("a") ? "a" : nil), "\(problem)")
        }
        for problem in Self.transportProblems {
            let expected: RedirectRefusal? = problem == .redirectRefused(.refusedByPolicy) ? .refusedByPolicy : nil
            #expect(problem.redirectRefusal == expected, "\(problem)")
        }
    }

    @Test("Descriptions keep their text: short, English, with no value a caller did not name")
    func descriptions() {
        let expected: [(any CustomStringConvertible, String)] = [
            (
                APIError.Reason.invalidRequest(.missingBaseURL),
                "invalid request: no base URL is configured and the path is not an absolute URL"
            ),
            (APIError.Reason.transport(.timedOut), "transport failure: the request timed out"),
            (APIError.Reason.unacceptableStatus(.notFound), "unacceptable status: not found"),
            (APIError.Reason.decodingFailed, "decoding failed"),
            (APIError.Reason.rejectedByService(code: "E1", message: nil), "rejected by the service with code E1"),
            (APIError.Reason.rejectedByService(code: "E1", message: "m"), "rejected by the service with code E1: m"),
            (APIError.Reason.notCached, "no fresh cached response (the cache policy reads from the cache only)"),
            (APIError.Reason.other, "other failure"),
            (APIError.RequestProblem.missingPathValue(name: "id"), "missing value for path parameter 'id'"),
            (
                APIError.RequestProblem.invalidPathValue(name: "id"),
                "path parameter 'id' would make an empty, '.' or '..' segment"
            ),
            (
                APIError.RequestProblem.unsupportedPathValue(name: "id"),
                "path parameter 'id' is an array or object; a path segment needs a single value"
            ),
            (
                APIError.RequestProblem.malformedPathTemplate,
                "the path template is malformed (unbalanced or empty '{}', or a '%' not followed by two hex digits)"
            ),
            (
                APIError.RequestProblem.invalidHeader(name: "X"),
                "header 'X' has an invalid name or a value with CR, LF or NUL"
            ),
            (
                APIError.RequestProblem.bodyNotAllowed,
                "this method cannot carry a request body; use the .query encoding"
            ),
            (APIError.RequestProblem.unencodableParameters, "the parameters could not be encoded"),
            (
                APIError.RequestProblem.unsupportedParameters,
                "this encoding needs named parameters (a dictionary or a keyed model)"
            ),
            (APIError.RequestProblem.mixedParameters, "named values cannot be added to a list or a model parameter"),
            (APIError.RequestProblem.unknownHost("uploads"), "host 'uploads' is not configured"),
            (APIError.RequestProblem.invalidBaseURL, "the base URL needs a scheme and a host"),
            (APIError.RequestProblem.invalidURL, "the parts do not make a valid URL"),
            (APIError.RequestProblem.unreadableBody, "the request body could not be read"),
            (
                APIError.RequestProblem.missingParameterBuilder("Int"),
                "the endpoint takes a Int parameter but its parameter builder is nil, so the value would not be "
                    + "sent; declare one, for example `= .init { $0 }`"
            ),
            (
                APIError.RequestProblem.unwritableDestination,
                "the download's destination is not a file URL in an existing folder"
            ),
            (APIError.TransportProblem.cannotConnect, "could not connect to the server"),
            (APIError.TransportProblem.offline, "the device is offline"),
            (APIError.TransportProblem.cancelled, "the request was cancelled"),
            (APIError.TransportProblem.connectionLost, "the connection was lost"),
            (APIError.TransportProblem.secureConnectionFailed, "the secure connection failed"),
            (APIError.TransportProblem.responseTooLarge, "the response body is larger than the limit for this call"),
            (APIError.TransportProblem.unsupportedByExecutor, "the executor does not support this kind of transfer"),
            (APIError.TransportProblem.redirectRefused(.tooManyRedirects), "too many redirects"),
            (APIError.TransportProblem.other, "the request failed"),
            (APIError.StatusCategory.badRequest, "bad request"),
            (APIError.StatusCategory.unauthorized, "unauthorized"),
            (APIError.StatusCategory.forbidden, "forbidden"),
            (APIError.StatusCategory.clientError, "client error"),
            (APIError.StatusCategory.serverError, "server error"),
            (APIError.StatusCategory.unexpected, "unexpected status"),
            (RedirectRefusal.insecureRedirect, "a redirect from https to http was refused"),
            (RedirectRefusal.refusedByPolicy, "the redirect policy refused a redirect"),
        ]
        for (value, text) in expected {
            #expect(value.description == text)
            #expect(String(describing: value) == text)
        }
    }
}
