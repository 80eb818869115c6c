import Courier
import CourierTesting
import Foundation
import Testing

/// `multipart/form-data` bodies (RFC 7578) built from a dictionary literal, read back byte for byte.
@Suite struct MultipartTests {
    static func read(_ body: RequestBody) async throws -> Data {
        var data = Data()
        for try await chunk in body.chunks() { data.append(chunk) }
        return data
    }

    @Test func fieldsAndFilesFromOneDictionaryLiteral() async throws {
        let file = try RequestBodyTests.temporaryFile(Data("file contents".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let endpoint = POST<URL>(
            wrappedValue: .init {
                [
                    "id": 7, "title": "Beach", "count": 2, "tags": ["a", "b"], "skip": nil,
                    "photo": .file($0, filename: "beach.jpg", contentType: "image/jpeg"),
                    "raw": Data([0, 255]), "note": .data(Data("hi".utf8), filename: "n.txt", contentType: "text/plain"),
                ]
            },
            "/photos/{id}", encoding: .multipart
        )

        let request = try endpoint.makeRequest(with: file, using: testConfiguration)
        let bytes = try await Self.read(request.body)

        #expect(request.url.path == "/v2/photos/7")
        let contentType = try #require(request.headers[.contentType])
        #expect(contentType.hasPrefix("multipart/form-data; boundary=courier-"))
        #expect(request.body.count == bytes.count)
        #expect(request.body.isReplayable)
        let form = try #require(MultipartFormContent(bytes, contentType: contentType))
        #expect(form.parts.map(\.name) == ["title", "count", "tags", "tags", "photo", "raw", "note"])
        #expect(form.parts.map(\.text).prefix(4) == ["Beach", "2", "a", "b"])
        #expect(form.parts[4].filename == "beach.jpg")
        #expect(form.parts[4].contentType == "image/jpeg")
        #expect(form.parts[4].text == "file contents")
        #expect(form.parts[5].data == Data([0, 255]))
        #expect(form.parts[5].filename == nil)
        #expect(form.parts[6].filename == "n.txt")
        #expect(form.parts[0].contentType == nil)
    }

    @Test func theWireFormatByteForByte() async throws {
        let form = MultipartForm(parts: [.field("a", "1"), .data("f", Data("x".utf8), filename: "f.txt")])
        let b = form.boundary

        let bytes = try await Self.read(.multipart(form))

        let expected =
            "--\(b)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"
            + "--\(b)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\nx\r\n--\(b)--\r\n"
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(form.count == expected.utf8.count)
    }

    @Test func namesAndFilenamesCannotBreakOutOfTheirHeader() async throws {
        let form = MultipartForm(parts: [
            MultipartPart(
                name: "a\"b\\c\r\nX-Injected: 1", filename: "résumé \"final\".pdf", contentType: "text/plain\r\nX: y",
                content: .data(Data("v".utf8)))
        ])

        let bytes = try await Self.read(.multipart(form))
        let text = String(decoding: bytes, as: UTF8.self)

        #expect(text.contains(#"name="a\"b\\c%0D%0AX-Injected: 1"; filename="résumé \"final\".pdf""#))
        #expect(!text.contains("\r\nX-Injected"))
        #expect(!text.contains("\r\nX: y"))
        let parsed = try #require(MultipartFormContent(bytes, contentType: form.contentType))
        #expect(parsed.parts.first?.name == "a\"b\\c\r\nX-Injected: 1")
        #expect(parsed.parts.first?.filename == "résumé \"final\".pdf")
    }

    @Test func theBoundaryNeverOccursInInMemoryContent() async throws {
        var form = MultipartForm()
        let first = form.boundary
        form.append(.field("trap", "--\(first)--"))
        #expect(form.boundary != first)
        let bytes = try await Self.read(.multipart(form))
        let parsed = try #require(MultipartFormContent(bytes, contentType: form.contentType))
        #expect(parsed.parts.map(\.text) == ["--\(first)--"])
    }

    @Test func aStreamPartMakesTheFormOneShotAndItsSizeUnknownUnlessDeclared() throws {
        let stream = AsyncStream<Data> { $0.finish() }
        let unknown = MultipartForm(parts: [MultipartPart(name: "s", content: .stream(stream))])
        let declared = MultipartForm(parts: [MultipartPart(name: "s", content: .stream(stream, count: 0))])
        #expect(RequestBody.multipart(unknown).count == nil)
        #expect(RequestBody.multipart(declared).count != nil)
        #expect(!RequestBody.multipart(unknown).isReplayable)
    }

    @Test func aFileValueOutsideMultipartIsUnencodable() throws {
        let endpoint = POST<URL>(wrappedValue: .init { ["photo": .file($0)] }, "/p")
        let error = try #require(throws: APIError.self) {
            try endpoint.makeRequest(with: URL(fileURLWithPath: "/tmp/x"), using: testConfiguration)
        }
        #expect(error.reason == .invalidRequest(.unencodableParameters))
    }

    @Test func aModelBecomesTextFields() async throws {
        struct Profile: Encodable, Sendable {
            let name: String
            let admin: Bool
        }
        let endpoint = POST<Profile>(wrappedValue: .init { $0 }, "/profile", encoding: .multipart)
        let request = try endpoint.makeRequest(with: Profile(name: "Zoë", admin: true), using: testConfiguration)
        let parsed = try #require(
            MultipartFormContent(try await Self.read(request.body), contentType: request.headers[.contentType]))
        #expect(parsed.parts.map(\.name) == ["name", "admin"])
        #expect(parsed.parts.map(\.text) == ["Zoë", "true"])
    }
}
