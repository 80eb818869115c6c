import Foundation
import Testing

@testable import CourierOpenAPI

/// Path arrays in label and matrix style as RFC 6570 expands them: an empty list is undefined (section 2.3), and an
/// undefined variable expands to nothing, its `.` or `;name=` included (sections 3.2.5 and 3.2.7).
@Suite struct PathStyleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var style: String
        var explode: Bool
        var nullable = false
        /// The builder's entry for the `tags` path value.
        var entry: String
        var testDescription: String { "\(style), explode: \(explode)\(nullable ? ", nullable" : "")" }
    }

    static let cases: [Case] = [
        Case(
            style: "label", explode: false,
            entry:
                #""tags": $0.tags.isEmpty ? "" : ".\($0.tags.map { "\($0)" as DelimitedValue }.joined(separator: ","))" as DelimitedValue"#
        ),
        Case(
            style: "label", explode: true,
            entry:
                #""tags": $0.tags.isEmpty ? "" : ".\($0.tags.map { "\($0)" as DelimitedValue }.joined(separator: "."))" as DelimitedValue"#
        ),
        Case(
            style: "matrix", explode: false,
            entry:
                #""tags": $0.tags.isEmpty ? "" : ";tags=\($0.tags.map { "\($0)" as DelimitedValue }.joined(separator: ","))" as DelimitedValue"#
        ),
        // Exploded matrix and simple style write nothing for an empty list as they are.
        Case(
            style: "matrix", explode: true,
            entry: #""tags": $0.tags.map { ";tags=\($0)" as DelimitedValue }.joined(separator: "")"#),
        Case(
            style: "simple", explode: false,
            entry: #""tags": $0.tags.map { "\($0)" as DelimitedValue }.joined(separator: ",")"#),
        Case(
            style: "label", explode: false, nullable: true,
            entry:
                #""tags": $0.tags.map { v in v.isEmpty ? "" : ".\(v.map { "\($0)" as DelimitedValue }.joined(separator: ","))" as DelimitedValue }"#
        ),
    ]

    @Test(arguments: cases) func anEmptyListExpandsToNothing(_ test: Case) throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /reports/all{tags}:
                    get:
                      operationId: report
                      parameters:
                        - name: tags
                          in: path
                          required: true
                          style: \(test.style)
                          explode: \(test.explode)
                          schema: { type: array, nullable: \(test.nullable), items: { type: string } }
                        - { name: page, in: query, schema: { type: integer } }
                      responses: { "204": { description: ok } }
                """)
        let book = try #require(Generator(description: description).files()["TAPI.swift"])
        // Lines joined: a long entry is broken where swift-format breaks it.
        #expect(book.replacing(/\n */, with: " ").contains(test.entry), "\(book)")
    }

    /// An object whose members may all be absent: with none present it is undefined too, and label and matrix
    /// style write nothing for it (exploded matrix joins no `;name=value` pairs as it is).
    @Test(arguments: [("label", false, true), ("label", true, true), ("matrix", false, true), ("matrix", true, false)])
    func anObjectWithNoMemberExpandsToNothing(style: String, explode: Bool, guarded: Bool) throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: T, version: "1" }
                paths:
                  /reports/range{window}:
                    get:
                      operationId: report
                      parameters:
                        - name: window
                          in: path
                          required: true
                          style: \(style)
                          explode: \(explode)
                          schema: { type: object, properties: { from: { type: integer }, to: { type: integer } } }
                      responses: { "204": { description: ok } }
                """)
        let book = try #require(Generator(description: description).files()["TAPI.swift"])
        let joined = book.replacing(/\n */, with: " ")
        let list = #"[$0.from.map { "from"#
        #expect(joined.contains(list), "\(book)")
        #expect(joined.contains(#".compactMap { $0 }.isEmpty ? "" : "#) == guarded, "\(book)")
    }
}
