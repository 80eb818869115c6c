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

    /// A model that holds itself (`Node.parent`), and models and unions that hold each other,
    /// compile (this target compiles them) and code as plain members would.
    @Test func modelsInACycleCodeThroughTheirOutOfLineMembers() throws {
        let json = #"{"name":"leaf","parent":{"name":"root","children":[]}}"#
        let node = try JSONDecoder().decode(Node.self, from: Data(json.utf8))
        #expect(node.parent?.name == "root" && node.parent?.parent == nil && node.parent?.children?.isEmpty == true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // A nil out-of-line member is left out, as a nil optional is.
        let root = Node(name: "root", parent: nil, children: nil)
        #expect(String(decoding: try encoder.encode(root), as: UTF8.self) == #"{"name":"root"}"#)
        var leaf = Node(name: "leaf", parent: root, children: nil)
        leaf.parent?.name = "top"
        #expect(
            String(decoding: try encoder.encode(leaf), as: UTF8.self) == #"{"name":"leaf","parent":{"name":"top"}}"#)
        let ring = try JSONDecoder().decode(Ring.self, from: Data(#"{"next":{"ring":{"shape":{"first":"dot"}}}}"#.utf8))
        guard case .shapeGroup(let group)? = ring.next?.ring?.shape, case .string("dot") = group.first else {
            Issue.record("decoded \(ring)")
            return
        }
    }

    /// Members the description does not list are kept beside the listed ones.
    @Test func membersTheDescriptionDoesNotListAreKept() throws {
        let json = #"{"name":"b","id":"b1","last_modified":17}"#
        let bucket = try JSONDecoder().decode(Bucket.self, from: Data(json.utf8))
        #expect(bucket.name == "b")
        #expect(bucket.additionalProperties["id"] == .string("b1"))
        #expect(bucket.additionalProperties["last_modified"] == .number(17))
        #expect(bucket.additionalProperties["name"] == nil)
        // Encoding them is checked against a live Kinto (CompileTests).
    }

    /// An error schema written inline on a response has a model to decode the error body into.
    @Test func anInlineErrorSchemaHasAModel() throws {
        let error = try JSONDecoder().decode(GetWireBucketError.self, from: Data(#"{"code":404,"reason":"gone"}"#.utf8))
        #expect(error.code == 404 && error.reason == "gone")
    }
}
