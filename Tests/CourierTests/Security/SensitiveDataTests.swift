import Courier
import CourierTesting
import Foundation
import Testing

@Suite struct SensitiveDataTests {
    @Test(arguments: [
        "password", "Password", "PASSWD", "pwd", "new_password", "password_confirmation", "currentPassword",
        "passphrase", "secret", "client_secret", "clientSecret", "token", "accessToken", "access_token",
        "refresh-token", "id_token", "X-Auth-Token", "X-CSRF-Token", "api_key", "apiKey", "APIKEY", "X-API-Key",
        "x-goog-api-key", "Ocp-Apim-Subscription-Key", "aws_secret_access_key", "private_key", "privateKey",
        "session_id", "sessionId", "PHPSESSID", "credential", "credentials", "X-Amz-Signature", "sig", "auth",
        "jwt", "otp", "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
        // Nested and dotted keys.
        "profile[password]", "filter[password]", "profile.password", "user[api][key]", "a[b][client_secret]",
        "data.attributes.accessToken", "password[hint]",
    ])
    func secretNames(name: String) {
        #expect(SensitiveData.isSensitiveKey(name))
        #expect(SensitiveData.isSensitive(HTTPHeaderName(rawValue: name)))
    }

    @Test(arguments: [
        "author", "authority", "authored_at", "authenticated", "authorization_endpoint", "tokenizer", "token_type",
        "max_tokens", "input_tokens", "secretary", "nextPageToken", "page_token", "NextToken", "continuationToken",
        "publicKey", "key", "keyword", "monkey", "id", "name", "session", "code", "passenger", "Content-Type",
        "Accept", "X-Request-ID", "WWW-Authenticate", "Location", "Access-Control-Allow-Credentials", "profile[name]",
        "filter[status]", "user.email",
    ])
    func publicNames(name: String) {
        #expect(!SensitiveData.isSensitiveKey(name))
        #expect(!SensitiveData.isSensitive(HTTPHeaderName(rawValue: name)))
    }

    @Test func aHeaderMarkedByTheRequestIsSensitiveInThatRequestOnly() throws {
        var request = try GET<Void>("/x").makeRequest(using: testConfiguration)
        #expect(!SensitiveData.isSensitive("X-Vendor", in: request))
        request.sensitiveNames.insert("x-vendor")
        #expect(SensitiveData.isSensitive("X-Vendor", in: request))
        #expect(!SensitiveData.isSensitive("X-Vendor"))
        #expect(SensitiveData.isSensitive(.authorization, in: request))
    }

    @Test func urlsAreRedactedByTheSameRules() throws {
        let url = try #require(
            URL(string: "https://u:p@h.example/x?accessToken=a1&page=2&filter%5Bpassword%5D=b2#id_token=c3"))
        #expect(
            SensitiveData.redacted(url)
                == "https://***:***@h.example/x?accessToken=***&page=2&filter%5Bpassword%5D=***#id_token=***")
        let plain = try #require(URL(string: "https://h.example/x?page=2"))
        #expect(SensitiveData.redacted(plain) == "https://h.example/x?page=2")
    }

    @Test func anUnstubbedRequestNamesTheURLRedacted() async throws {
        let stub = StubExecutor()
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [.apiKey("k-7788", queryItem: "api_key"), .apiKey("g-1234", queryItem: "key")]
        let error = try await #require(throws: APIError.self) {
            try await GET<Void>("/x").request(using: configuration)
        }
        let unstubbed = try #require(error.underlyingError as? UnstubbedRequest)
        #expect(
            "\(unstubbed)"
                == "no stub for GET /x (https://api.example.com/v2/x?api_key=***&key=***); add one with stub(_:with:)")
    }

    @Test(arguments: ["ACCESS-token", "Access_Token", "access token", "accessTOKEN"])
    func namesAreComparedIgnoringCaseAndSeparators(name: String) {
        #expect(SensitiveData.isSensitiveKey(name))
    }

    @Test func refreshingAuthMarksEveryHeaderItsApplySets() async throws {
        // GIVEN a refreshing plugin whose apply sets a header no rule names, and changes another
        let stub = StubExecutor().stubEverything(with: .status(200))
        var configuration = testConfiguration.with { $0.executor = stub }
        configuration.plugins = [
            RefreshingAuthPlugin<String>(
                credential: { "cred" },
                refresh: { _ in "cred" },
                apply: { credential, request in
                    request.headers["X-Vendor"] = credential
                    request.headers["X-Region"] = "eu-\(credential)"
                }
            )
        ]
        // WHEN a call is made with X-Region already set and X-Trace untouched
        try await GET<Void>("/x", headers: ["X-Region": "us", "X-Trace": "1"]).request(using: configuration)
        // THEN what apply added or changed is marked, the rest is not
        let sent = try #require(stub.requests.first)
        #expect(sent.sensitiveNames.contains("X-Vendor"))
        #expect(sent.sensitiveNames.contains("X-Region"))
        #expect(!sent.sensitiveNames.contains("X-Trace"))
    }
}

@Suite struct RedactedDescriptionTests {
    static let secretRequest: APIRequest = {
        var request = APIRequest(
            method: .post,
            url: URL(string: "https://bob:pw-9911@api.example.com/v2/login?api_key=k-9911&page=2")
                ?? URL(fileURLWithPath: "/"),
            headers: [
                "Authorization": "Bearer t-9911", "X-Vendor": "v-9911", "Accept": "application/json",
                "Content-Type": "application/json",
            ],
            body: .data(Data(#"{"user":"ann","password":"p-9911"}"#.utf8)),
            sensitiveNames: ["X-Vendor"],
            endpoint: APIEndpoint(method: .post, path: "/login")
        )
        request.timeout = .seconds(5)
        return request
    }()
    static let secrets = ["pw-9911", "k-9911", "t-9911", "v-9911", "p-9911", "bob"]

    func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    @Test func aRequestDescribesItselfWithoutSecrets() {
        let request = Self.secretRequest
        #expect(
            String(describing: request)
                == "POST https://***:***@api.example.com/v2/login?api_key=***&page=2 (body: 34 bytes, application/json)"
        )
        #expect("\(request)" == String(describing: request))
        #expect(
            String(reflecting: request)
                == "APIRequest(POST https://***:***@api.example.com/v2/login?api_key=***&page=2, headers: "
                + "[Authorization: ***, X-Vendor: ***, Accept: application/json, Content-Type: application/json], "
                + "body: 34 bytes, application/json, endpoint: POST /login)")
        let dump = dumped(request)
        for secret in Self.secrets { #expect(!dump.contains(secret), "\(secret) in \(dump)") }
        #expect(dump.contains(#"- value: "***""#))
        #expect(dump.contains(#"- body: "34 bytes, application/json""#))
    }

    @Test func theMirrorHoldsRedactedValues() {
        let children = Dictionary(
            uniqueKeysWithValues: Mirror(reflecting: Self.secretRequest).children.compactMap { child in
                child.label.map { ($0, child.value) }
            })
        #expect(children["url"] as? String == "https://***:***@api.example.com/v2/login?api_key=***&page=2")
        #expect((children["headers"] as? HTTPHeaders)?[.authorization] == "***")
        #expect((children["headers"] as? HTTPHeaders)?["X-Vendor"] == "***")
        #expect(children["body"] as? String == "34 bytes, application/json")
    }

    @Test func headersFieldsAndBodiesPrintWithoutSecrets() {
        let headers: HTTPHeaders = ["Authorization": "Bearer t-9911", "X-API-Key": "k-9911", "Accept": "*/*"]
        #expect(String(reflecting: headers) == "[Authorization: ***, X-API-Key: ***, Accept: */*]")
        #expect("\(headers.fields)" == "[Authorization: ***, X-API-Key: ***, Accept: */*]")
        #expect(!dumped(headers).contains("9911"))
        let body = RequestBody.data(Data("p-9911".utf8))
        #expect("\(body)" == "6 bytes")
        #expect(!dumped(body).contains("57"))  // no byte values
        #expect("\(ResponseBody.data(Data("p-9911".utf8)))" == "6 bytes")
        #expect("\(RequestBody.empty)" == "empty")
    }

    @Test func anErrorRedactsTheURLInAnUnderlyingErrorsText() {
        struct LoadFailure: Error, CustomStringConvertible {
            var description: String { "cannot load https://u:pw-9911@cdn.example.com/f?token=k-9911&x=1" }
        }
        let error = APIError(
            .other, endpoint: Self.secretRequest.endpoint, request: Self.secretRequest, underlyingError: LoadFailure())
        #expect("\(error)" == "POST /login: cannot load https://***:***@cdn.example.com/f?token=***&x=1")
        #expect(error.localizedDescription == "\(error)")
        for text in [String(reflecting: error), dumped(error), error.debugDetails()] {
            for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) in \(text)") }
        }
    }

    @Test func aURLErrorsFailingURLIsRedacted() {
        let url = Self.secretRequest.url
        let error = APIError.wrapping(
            URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url]), request: Self.secretRequest)
        let text = dumped(error) + String(reflecting: error)
        #expect(
            text.contains("URLError(-1001, failingURL: https://***:***@api.example.com/v2/login?api_key=***&page=2)"))
        for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) in \(text)") }
    }

    @Test func aServerMessageThatEchoesASecretIsMasked() {
        let error = APIError(
            .rejectedByService(code: "E1", message: "bad password p-9911"), endpoint: Self.secretRequest.endpoint,
            request: Self.secretRequest)
        #expect("\(error)" == "POST /login: the service rejected the request with code E1: bad password ***")
        #expect(!dumped(error).contains("p-9911"))
    }

    @Test func onlyTheExplicitCallRevealsSecrets() {
        let response = APIResponse(
            statusCode: 401, headers: ["Content-Type": "application/json"],
            body: .data(Data(#"{"echo":"t-9911"}"#.utf8)), request: Self.secretRequest)
        let error = APIError(
            .unacceptableStatus(.unauthorized), endpoint: Self.secretRequest.endpoint, request: Self.secretRequest,
            response: response)
        let redacted = [
            Self.secretRequest.debugDetails(), response.debugDetails(), error.debugDetails(),
            error.debugDetails(revealingSecrets: false),
        ]
        for text in redacted {
            for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) in \(text)") }
        }
        let revealed = error.debugDetails(revealingSecrets: true)
        for secret in Self.secrets { #expect(revealed.contains(secret), "\(secret) not in \(revealed)") }
        #expect(Self.secretRequest.debugDetails(revealingSecrets: true).contains(#""password":"p-9911""#))
    }
}
