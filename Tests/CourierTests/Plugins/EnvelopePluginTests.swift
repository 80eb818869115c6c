import Courier
import CourierTesting
import Foundation
import Testing

@Suite struct EnvelopePluginTests {
    struct User: Decodable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    static let user = GET<Int>(wrappedValue: .init { ["id": $0] }, "/users/{id}")
    static let remove = DELETE<Int>(wrappedValue: .init { ["id": $0] }, "/users/{id}")

    func configuration(_ json: String, status: Int = 200, plugin: EnvelopePlugin = EnvelopePlugin()) -> APIConfiguration
    {
        var configuration = testConfiguration.with { $0.executor = StubExecutor.json(json, statusCode: status) }
        configuration.plugins = [plugin]
        return configuration
    }

    @Test func successReturnsTheTypedPayload() async throws {
        let configuration = configuration(#"{"code":0,"msg":"ok","data":{"id":7,"name":"Ann"}}"#)
        let user: User = try await Self.user.request(with: 7, using: configuration)
        #expect(user == User(id: 7, name: "Ann"))
    }

    @Test func arraysAndScalarsAsPayload() async throws {
        let names: [String] = try await Self.user.request(
            with: 1, using: configuration(#"{"code":0,"data":["a","b"]}"#))
        #expect(names == ["a", "b"])
        let count: Int = try await Self.user.request(with: 1, using: configuration(#"{"code":0,"data":42}"#))
        #expect(count == 42)
    }

    @Test(arguments: [#"{"code":0,"msg":"ok","data":null}"#, #"{"code":0,"msg":"ok"}"#])
    func nullOrMissingPayloadIsNilForOptionals(json: String) async throws {
        let user: User? = try await Self.user.request(with: 1, using: configuration(json))
        #expect(user == nil)
    }

    @Test func aFailureCodeBecomesAnErrorWithCodeAndMessage() async throws {
        let configuration = configuration(#"{"code":1001,"msg":"user not found","data":null}"#)
        let error = try await #require(throws: APIError.self) {
            let _: User = try await Self.user.request(with: 7, using: configuration)
        }
        #expect(error.reason == .rejectedByService(code: "1001", message: "user not found"))
        #expect(error.description == "GET /users/{id}: the service rejected the request with code 1001: user not found")
        #expect(error.response?.statusCode == 200)
    }

    @Test func aFailureCodeFailsCallsThatDiscardTheResultToo() async throws {
        let configuration = configuration(#"{"code":403,"msg":"denied"}"#)
        await #expect(throws: APIError.self) { try await Self.remove.request(with: 1, using: configuration) }
    }

    @Test func customKeysAndStringCodes() async throws {
        let plugin = EnvelopePlugin(codeKey: "status", messageKey: "message", dataKey: "result") { $0 == "OK" }
        let ok = configuration(#"{"status":"OK","result":{"id":1,"name":"a"}}"#, plugin: plugin)
        let user: User = try await Self.user.request(with: 1, using: ok)
        #expect(user.id == 1)
        let failed = configuration(#"{"status":"E_RATE","message":"slow down"}"#, plugin: plugin)
        let error = try await #require(throws: APIError.self) {
            let _: User = try await Self.user.request(with: 1, using: failed)
        }
        #expect(error.reason == .rejectedByService(code: "E_RATE", message: "slow down"))
    }

    @Test func statusErrorsAndNonEnvelopeBodiesPassThrough() async throws {
        let serverError = configuration(#"{"code":0,"data":{}}"#, status: 500)
        let error = try await #require(throws: APIError.self) {
            let _: User = try await Self.user.request(with: 1, using: serverError)
        }
        #expect(error.reason == .unacceptableStatus(.serverError))
        let plain: [Int] = try await Self.user.request(with: 1, using: configuration("[1,2]"))
        #expect(plain == [1, 2])
    }
}
