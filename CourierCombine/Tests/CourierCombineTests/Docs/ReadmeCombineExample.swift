// The Combine example of README.md ("Combine" section), compiled and run here because the root package, whose
// ReadmeSnippets.swift checks the other README examples, cannot import CourierCombine. Keep the two in step.
// The only differences: the imports and the scheduler, which OpenCombine spells `DispatchQueue.main.ocombine`
// (`mainQueue`, Support/MainQueue.swift).
import Courier
import CourierCombine
import CourierTesting
import Foundation
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// The README's `Product` model.
struct Product: Codable, Sendable {
    let id: Int
    let name: String
}

/// The README's `Shop` address book (the endpoint the example calls).
@MainActor enum Shop {
    @GET("/products/{id}")
    static var product: APIParameterBuilder<Int>? = .init { ["id": $0] }
}

// README.md, "Combine":
@MainActor final class ProductModel {
    var title = ""
    private var subscriptions: Set<AnyCancellable> = []

    func load(id: Int) {
        Shop.$product.publisher(with: id, as: Product.self)  // nothing is sent before a subscriber attaches
            .map(\.name)
            .replaceError(with: "unavailable")  // the failure is an APIError, as with request(with:)
            .receive(on: mainQueue)  // README: DispatchQueue.main; values arrive on no particular queue
            .assign(to: \.title, on: self)
            .store(in: &subscriptions)
    }
}

@Suite struct ReadmeCombineExampleTests {
    @MainActor
    @Test("The README's Combine example fills the model's title, or a placeholder when the call fails")
    func example() async throws {
        // GIVEN a stub that knows product 42 and nothing else
        let stub = StubExecutor()
            .stub(where: { $0.url.path == "/products/42" }, with: .json(#"{"id": 42, "name": "Lamp"}"#))
            .stub(where: { _ in true }, with: .status(404))
        let found = ProductModel()
        let missing = ProductModel()

        // WHEN both models load, subscribing where the stub is the current executor
        await stub.activate {
            found.load(id: 42)
            missing.load(id: 7)
        }

        // THEN the titles arrive on the main actor
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while found.title.isEmpty || missing.title.isEmpty, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(found.title == "Lamp")
        #expect(missing.title == "unavailable")
        #expect(stub.requests.map(\.url.path).sorted() == ["/products/42", "/products/7"])
    }
}
