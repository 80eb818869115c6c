import Foundation
import Testing

/// The coding of the committed Zoo book's models (ZooBook/, compiled into this target): what the generated
/// declarations promise at run time, beyond their text.
struct GeneratedCodingTests {
    @Test func aStringEnumKeepsValuesTheDescriptionDoesNotList() throws {
        let decoded = try JSONDecoder().decode([Kind].self, from: Data(#"["cat","sea-lion","okapi"]"#.utf8))
        #expect(decoded.map(\.rawValue) == ["cat", "sea-lion", "okapi"])
        guard case .unknown("okapi") = decoded[2], case .seaLion = decoded[1] else {
            Issue.record("decoded \(decoded)")
            return
        }
        let encoded = try JSONEncoder().encode([Kind.seaLion, .unknown("okapi")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["sea-lion","okapi"]"#)
        // Built from its text, and equal by its text: a listed value spelled as unknown is that case.
        #expect(Kind(rawValue: "dog") == .dog)
        #expect(Kind.unknown("dog") == .dog)
        #expect(Set([Kind.cat, .unknown("cat"), .unknown("okapi")]).count == 2)
    }

    @Test func aDecodedOnlyUnionAndAnEncodedOnlyModelCodeTheirOneWay() throws {
        let pets = try JSONDecoder().decode([Pet].self, from: Data(#"[{"petType":"kitty","lives":9}]"#.utf8))
        guard case .cat(let cat) = pets.first else {
            Issue.record("decoded \(pets)")
            return
        }
        #expect(cat.lives == 9)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = try encoder.encode(CreateAnimalRequest(name: "Rex", kind: .unknown("okapi")))
        #expect(String(decoding: body, as: UTF8.self) == #"{"kind":"okapi","name":"Rex"}"#)
    }
}
