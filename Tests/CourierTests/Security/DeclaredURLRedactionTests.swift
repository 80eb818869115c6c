import Courier
import CourierTesting
import Foundation
import Testing

/// An endpoint's own description is safe to print: a secret written into the declaration (a pre-signed URL, a
/// URL's user info) is masked there, so that no surface that names the endpoint (errors, timelines, HAR
/// entries, cassettes, logs) can print it raw.
@Suite struct DeclaredURLRedactionTests {
    @Test(
        "The description masks the secrets a declared path holds",
        arguments: [
            ("/users/{login}", "GET /users/{login}"),
            ("/get?a=1&page=2", "GET /get?a=1&page=2"),
            ("/get?token=abc&page=2", "GET /get?token=***&page=2"),
            (
                "https://bucket.s3.amazonaws.com/r.pdf?X-Amz-Credential=AKIA%2F1&X-Amz-Date=20261127&X-Amz-Signature=9f8",
                "GET https://bucket.s3.amazonaws.com/r.pdf?X-Amz-Credential=***&X-Amz-Date=20261127&X-Amz-Signature=***"
            ),
            ("https://bob:pa55@api.example.com/v1/{id}", "GET https://***:***@api.example.com/v1/{id}"),
            ("https://bob@api.example.com/v1", "GET https://***@api.example.com/v1"),
            ("/callback#access_token=xyz&state=1", "GET /callback#access_token=***&state=1"),
            ("/files/{name}?sig={sig}", "GET /files/{name}?sig=***"),
            ("/mail/user@example.com", "GET /mail/user@example.com"),
        ]
    )
    func descriptionMasksDeclaredSecrets(_ path: String, _ expected: String) {
        let endpoint = APIEndpoint(method: .get, path: path)

        #expect(endpoint.description == expected)
        #expect(endpoint.path == path, "the path stays as declared")
    }

    @Test("dump and mirrors of an endpoint print the masked path")
    func mirrorMasksDeclaredSecrets() {
        let endpoint = GET<Void>("https://u:pa55-SECRET@h.example/r?X-Amz-Signature=s1g-SECRET").endpoint
        var dumped = ""
        dump(endpoint, to: &dumped)

        #expect(!dumped.contains("SECRET"), "\(dumped)")
        #expect(dumped.contains("X-Amz-Signature=***"))
    }

    @Test("An error of a pre-signed URL keeps its `: ` between the masked endpoint and the cause")
    func errorDescriptionKeepsItsSeparator() async {
        let presigned = GET<Void>("https://bucket.example.com/r.pdf?X-Amz-Signature=s1g-SECRET")
        let forbidden = APIConfiguration().with { $0.executor = StubExecutor().stubEverything(with: .status(403)) }

        await #expect {
            try await presigned.request(using: forbidden)
        } throws: { error in
            let text = (error as? APIError)?.description ?? ""
            return text.hasPrefix("GET https://bucket.example.com/r.pdf?X-Amz-Signature=***: ")
                && !text.contains("SECRET")
        }
    }

    @Test(
        "A URL in free text ends before the punctuation that follows it",
        arguments: [
            ("see https://h.example/r?token=abc: gone", "see https://h.example/r?token=***: gone"),
            ("at https://h.example/r?token=abc, then", "at https://h.example/r?token=***, then"),
            ("(https://h.example/r?token=abc)", "(https://h.example/r?token=***)"),
        ]
    )
    func urlInTextKeepsTrailingPunctuation(_ text: String, _ expected: String) async {
        let failing = APIConfiguration().with {
            $0.executor = StubExecutor().stubEverything(with: .error(TextError(text: text)))
        }

        await #expect {
            try await GET<Void>("https://api.example.com/r").request(using: failing)
        } throws: { error in
            (error as? APIError)?.debugDetails().contains(expected) == true
        }
    }

    struct TextError: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }
}
