import Courier
import CourierTesting
import Foundation
import Testing

/// `DelimitedValue`: RFC 6570 and OpenAPI styles in a path or a query keep their delimiters; the values inside
/// are encoded.
@Suite struct DelimitedValueTests {
    static let shelf = GET<DelimitedValue>(wrappedValue: .init { ["value": $0] }, "/shelves/{value}")
    static let search = GET<DelimitedValue>(wrappedValue: .init { ["q": $0] }, "/search")

    /// (value, its text in a path segment, its text in a query) — each OpenAPI style the generator writes.
    static let styles: [(DelimitedValue, String, String)] = [
        // simple array
        ([3, 4, 5].map { "\($0)" as DelimitedValue }.joined(separator: ","), "3,4,5", "3,4,5"),
        // simple object, exploded and not
        ("x=\(1),y=\(2)", "x=1,y=2", "x=1,y=2"),
        ("x,\(1),y,\(2)", "x,1,y,2", "x,1,y,2"),
        // label and matrix scalars
        (".\(5)", ".5", ".5"),
        (";id=\(5)", ";id=5", ";id=5"),
        // matrix array, exploded
        ([3, 4].map { ";id=\($0)" as DelimitedValue }.joined(separator: ""), ";id=3;id=4", ";id=3;id=4"),
        // the values inside are encoded: their own `,` `;` `=` `/` `&` `+` and space included
        (["a,b", "c;d"].map { "\($0)" as DelimitedValue }.joined(separator: ","), "a%2Cb,c%3Bd", "a%2Cb,c%3Bd"),
        ("k=\("x=y/z")", "k=x%3Dy%2Fz", "k=x%3Dy%2Fz"),
        (".\("a b&c+d")", ".a%20b%26c%2Bd", ".a%20b%26c%2Bd"),
        // delimiters that would split a path or a query are encoded even as delimiters
        ("a/\(1)&b?#\(2)", "a%2F1%26b%3F%232", "a%2F1%26b%3F%232"),
        // an empty list
        ([String]().map { "\($0)" as DelimitedValue }.joined(separator: ","), "", ""),
    ]

    @Test(arguments: styles)
    func delimitersAreKeptAndValuesEncoded(value: DelimitedValue, path: String, query: String) throws {
        if path.isEmpty {
            // An empty segment is refused, as an empty plain value is.
            let error = try #require(buildError { try Self.shelf.makeRequest(with: value, using: testConfiguration) })
            #expect(error.reason == .invalidRequest(.invalidPathValue(name: "value")))
        } else {
            let request = try Self.shelf.makeRequest(with: value, using: testConfiguration)
            #expect(request.url.absoluteString == "https://api.example.com/v2/shelves/" + path)
        }
        let request = try Self.search.makeRequest(with: value, using: testConfiguration)
        #expect(request.rawQuery == "q=" + query)
    }

    @Test func aPlainStringStillEncodesEveryDelimiter() throws {
        let endpoint = GET<String>(wrappedValue: .init { ["value": $0, "q": $0] }, "/shelves/{value}")
        let request = try endpoint.makeRequest(with: "3,4;x=1", using: testConfiguration)
        #expect(request.url.absoluteString == "https://api.example.com/v2/shelves/3%2C4%3Bx%3D1?q=3%2C4%3Bx%3D1")
    }

    @Test func oneArrayIsCommaSeparatedBesideAnExplodedOne() throws {
        // One parameter's comma list does not change how the others are written (repeated keys by default).
        let endpoint = GET<Void>(
            wrappedValue: .init {
                ["colors": ["red", "blue"].map { "\($0)" as DelimitedValue }.joined(separator: ","), "sizes": [1, 2]]
            },
            "/x")
        let request = try endpoint.makeRequest(using: testConfiguration)
        #expect(request.rawQuery == "colors=red,blue&sizes=1&sizes=2")
    }

    @Test func inAFormBodyAValueSpaceIsAPlusAndInJSONItIsItsText() throws {
        let value: DelimitedValue = "\("a b"),\("c")"
        let form = POST<DelimitedValue>(wrappedValue: .init { ["q": $0] }, "/x", encoding: .form)
        let formRequest = try form.makeRequest(with: value, using: testConfiguration)
        #expect(formRequest.bodyText == "q=a+b,c")
        let json = POST<DelimitedValue>(wrappedValue: .init { ["q": $0] }, "/x")
        #expect(try json.makeRequest(with: value, using: testConfiguration).bodyText == #"{"q":"a b,c"}"#)
    }
}
