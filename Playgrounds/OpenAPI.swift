// OpenAPI: an address book generated from a description — Bin/bin.yaml, three of httpbin's endpoints — by
// CourierOpenAPI's `courier-openapi generate Playgrounds/Bin/bin.yaml --output Playgrounds/Bin`, committed in Bin/
// and called like a hand-written one. It is yours to edit: `courier-openapi check` reports where it drifts from the
// description, and scripts/test-openapi regenerates this copy and fails when the files differ.
import Courier
import Foundation

@MainActor
enum OpenAPIPage {
    static func run(_ stage: Stage) async throws {
        Console.step("A generated endpoint, called with typed values: the path value and an optional query array")
        let read: EchoedRequest = try await ItemsAPI.$getItem.request(with: (id: 7, fields: ["name", "tags"]))
        Console.result("\(read.method) \(read.url)")

        Console.step("The generated typed call: the body is a generated model, the result the response's model")
        let created = try await ItemsAPI.createItem(body: NewItem(name: "Lamp", tags: ["home"], kind: .tool))
        var name = "-"
        if case .string(let value)? = created.json?["name"] { name = value }
        Console.result("\(created.method) \(created.url), the server read name = \(name)")

        Console.step("Formats become Swift types: `format: uuid` is a UUID")
        let fresh = try await ItemsAPI.newIdentifier()
        Console.result("uuid \(fresh.uuid.uuidString.lowercased())")

        Console.note("string enums keep values the description does not list: \(NewItemKind.unknown("lamp").rawValue)")
        Console.note("the description's servers and security schemes are in Bin/Configuration.swift (`.bin()`)")
    }
}
