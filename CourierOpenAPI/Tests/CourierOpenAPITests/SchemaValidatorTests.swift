import Foundation
import Testing

@testable import CourierOpenAPI

/// `SchemaValidator`'s numeric bounds: `minimum` and `maximum`, made exclusive by OpenAPI 3.0's boolean
/// `exclusiveMinimum`/`exclusiveMaximum`, or OpenAPI 3.1's numeric `exclusiveMinimum`/`exclusiveMaximum` of their own.
@Suite struct SchemaValidatorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var schema: String
        var value: String
        /// The rules broken, in order.
        var rules: [String]
        var testDescription: String { "\(value) against \(schema)" }
    }

    static let cases: [Case] = [
        // Inclusive bounds, integers and numbers.
        Case(schema: #"{"type":"integer","minimum":1}"#, value: "1", rules: []),
        Case(schema: #"{"type":"integer","minimum":1}"#, value: "0", rules: ["minimum"]),
        Case(schema: #"{"type":"integer","maximum":10}"#, value: "10", rules: []),
        Case(schema: #"{"type":"integer","maximum":10}"#, value: "11", rules: ["maximum"]),
        Case(schema: #"{"type":"number","minimum":0.5,"maximum":1.5}"#, value: "0.25", rules: ["minimum"]),
        Case(schema: #"{"type":"number","minimum":0.5,"maximum":1.5}"#, value: "1.5", rules: []),
        Case(schema: #"{"type":"number","minimum":0.5,"maximum":1.5}"#, value: "2", rules: ["maximum"]),
        Case(schema: #"{"type":"integer","minimum":0.5}"#, value: "0", rules: ["minimum"]),
        Case(schema: #"{"type":"integer","maximum":10}"#, value: "12.0", rules: ["maximum"]),
        // OpenAPI 3.0: booleans make minimum and maximum exclusive.
        Case(
            schema: #"{"type":"integer","minimum":1,"exclusiveMinimum":true}"#, value: "1", rules: ["exclusiveMinimum"]),
        Case(schema: #"{"type":"integer","minimum":1,"exclusiveMinimum":true}"#, value: "2", rules: []),
        Case(schema: #"{"type":"integer","minimum":1,"exclusiveMinimum":false}"#, value: "1", rules: []),
        Case(
            schema: #"{"type":"number","maximum":1,"exclusiveMaximum":true}"#, value: "1", rules: ["exclusiveMaximum"]),
        Case(schema: #"{"type":"number","maximum":1,"exclusiveMaximum":true}"#, value: "0.99", rules: []),
        // OpenAPI 3.1: numbers of their own, beside or without minimum and maximum.
        Case(schema: #"{"type":"integer","exclusiveMinimum":0}"#, value: "0", rules: ["exclusiveMinimum"]),
        Case(schema: #"{"type":"integer","exclusiveMinimum":0}"#, value: "1", rules: []),
        Case(schema: #"{"type":"number","exclusiveMaximum":2.5}"#, value: "2.5", rules: ["exclusiveMaximum"]),
        Case(schema: #"{"type":"number","exclusiveMaximum":2.5}"#, value: "2.4", rules: []),
        Case(
            schema: #"{"type":"integer","minimum":0,"exclusiveMinimum":5,"maximum":9,"exclusiveMaximum":20}"#,
            value: "5", rules: ["exclusiveMinimum"]),
        Case(
            schema: #"{"type":"integer","minimum":0,"exclusiveMinimum":5,"maximum":9,"exclusiveMaximum":20}"#,
            value: "15", rules: ["maximum"]),
        // Bounds beyond 64 bits, and 64-bit values compared exactly.
        Case(schema: #"{"type":"integer","maximum":9223372036854775808}"#, value: "9223372036854775807", rules: []),
        Case(
            schema: #"{"type":"integer","maximum":9223372036854775806}"#, value: "9223372036854775807",
            rules: ["maximum"]),
        // Bounds apply to numbers only.
        Case(schema: #"{"type":"string","minimum":5}"#, value: #""1""#, rules: []),
        Case(schema: #"{"minimum":5}"#, value: "1", rules: ["minimum"]),
    ]

    @Test(arguments: cases) func numericBoundsAreChecked(_ test: Case) throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.1.0
                info: { title: Bounds, version: "1" }
                paths: {}
                """)
        let schema = try JSONNode.parse(Data(test.schema.utf8))
        let value = try JSONNode.parse(Data(test.value.utf8))
        let problems = SchemaValidator(description: description).validate(value, against: schema, at: "body")
        #expect(problems.map(\.rule) == test.rules)
        #expect(problems.allSatisfy { $0.location == "body" })
    }

    @Test func aBoundProblemSaysTheValueAndTheBound() throws {
        let description = try Support.description(
            yaml: """
                openapi: 3.0.3
                info: { title: Bounds, version: "1" }
                paths: {}
                """)
        let validator = SchemaValidator(description: description)
        let below = validator.validate(
            .integer(0), against: try JSONNode.parse(Data(#"{"type":"integer","minimum":1}"#.utf8)), at: "body.n")
        #expect(below.map(\.message) == ["0 is less than the minimum 1"])
        let atBound = validator.validate(
            .number(2.5),
            against: try JSONNode.parse(Data(#"{"type":"number","maximum":2.5,"exclusiveMaximum":true}"#.utf8)),
            at: "body.n")
        #expect(atBound.map(\.message) == ["2.5 is not less than the exclusive maximum 2.5"])
    }
}
