@_spi(Testing) import Courier
import Foundation
import Testing

/// Parameters nested deeper than `Parameters.maximumDepth` fail with a typed error on every path, however
/// deep they go, instead of overflowing the stack.
@Suite struct NestingDepthTests {
    /// `levels` arrays (or objects) inside each other around `1`, encoded by recursion.
    struct Nested: Encodable, Sendable {
        let levels: Int
        var keyed = false

        func encode(to encoder: any Encoder) throws {
            if levels == 0 {
                var container = encoder.singleValueContainer()
                try container.encode(1)
            } else if keyed {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(Nested(levels: levels - 1, keyed: keyed), forKey: Key(stringValue: "k"))
            } else {
                var container = encoder.unkeyedContainer()
                try container.encode(Nested(levels: levels - 1, keyed: keyed))
            }
        }
    }

    /// `levels` nested containers opened in a loop, without recursion, then a `1`.
    struct Iterative: Encodable, Sendable {
        let levels: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for _ in 1..<levels {
                container = container.nestedUnkeyedContainer()
            }
            try container.encode(1)
        }
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A model whose `inner` member nests `levels - 1` more levels: `levels` in all.
    struct Wrapper: Encodable, Sendable {
        let id: String
        let inner: Nested
    }

    static func model(_ levels: Int, keyed: Bool = false) -> Wrapper {
        Wrapper(id: "x", inner: Nested(levels: levels - 1, keyed: keyed))
    }

    static let limit = Parameters.maximumDepth

    @Test func theLimitIsAHundredLevels() {
        #expect(Parameters.maximumDepth == 100)
    }

    /// (name, build parameters nested `levels` deep): every way parameters are encoded.
    static let paths: [(String, @Sendable (Int) throws -> APIRequest)] = [
        (
            "dictionary → query",
            { levels in
                try GET<Int>(wrappedValue: .init { ["a": Nested(levels: $0 - 1)] }, "/x")
                    .makeRequest(with: levels, using: testConfiguration)
            }
        ),
        (
            "dictionary → form",
            { levels in
                try POST<Int>(wrappedValue: .init { ["a": Nested(levels: $0 - 1, keyed: true)] }, "/x", encoding: .form)
                    .makeRequest(with: levels, using: testConfiguration)
            }
        ),
        (
            "dictionary → JSON",
            { levels in
                try POST<Int>(wrappedValue: .init { ["a": Nested(levels: $0 - 1)] }, "/x")
                    .makeRequest(with: levels, using: testConfiguration)
            }
        ),
        (
            "list → JSON",
            { levels in
                try POST<Int>(wrappedValue: .init { [Nested(levels: $0 - 1, keyed: true)] }, "/x")
                    .makeRequest(with: levels, using: testConfiguration)
            }
        ),
        (
            "model → query",
            { levels in
                try GET<Wrapper>(wrappedValue: .init { $0 }, "/x").makeRequest(
                    with: model(levels), using: testConfiguration)
            }
        ),
        (
            "model → JSONEncoder",
            { levels in
                try POST<Wrapper>(wrappedValue: .init { $0 }, "/x").makeRequest(
                    with: model(levels), using: testConfiguration)
            }
        ),
        (
            "keyed model → JSONEncoder",
            { levels in
                try POST<Wrapper>(wrappedValue: .init { $0 }, "/x").makeRequest(
                    with: model(levels, keyed: true), using: testConfiguration)
            }
        ),
        (
            "model with a path value → JSONEncoder",
            { levels in
                try POST<Wrapper>(wrappedValue: .init { $0 }, "/x/{id}").makeRequest(
                    with: model(levels), using: testConfiguration)
            }
        ),
        (
            "iterative model → JSONEncoder",
            { levels in
                try POST<Iterative>(wrappedValue: .init { $0 }, "/x").makeRequest(
                    with: Iterative(levels: levels), using: testConfiguration)
            }
        ),
        (
            "iterative model → query",
            { levels in
                try GET<Int>(wrappedValue: .init { ["a": Iterative(levels: $0 - 1)] }, "/x")
                    .makeRequest(with: levels, using: testConfiguration)
            }
        ),
    ]

    @Test(arguments: paths)
    func theLimitItselfIsAccepted(name: String, build: @Sendable (Int) throws -> APIRequest) throws {
        _ = try build(Self.limit)
    }

    @Test(arguments: paths, [Self.limit + 1, 10_000])
    func deeperIsAnErrorNotACrash(
        path: (name: String, build: @Sendable (Int) throws -> APIRequest), levels: Int
    )
        throws
    {
        let error = try #require(buildError { try path.build(levels) })
        #expect(error.reason == .invalidRequest(.unencodableParameters))
        #expect(error.underlyingError is EncodingError)
    }
}
