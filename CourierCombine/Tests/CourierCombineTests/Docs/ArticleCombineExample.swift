// The first example of the Combine article (Courier.docc/Combine.md), compiled and run here because the root
// package cannot import CourierCombine. DocSnippetTests checks that every line of the block appears here, in
// order: the imports (with the conditional OpenCombine ones) and `mainQueue` are the user's code too, so this
// file defines the `mainQueue` the other tests use.
import Courier
import CourierCombine
import CourierTesting
import Foundation
import Testing

#if canImport(Combine)
    import Combine

    /// The main queue as a scheduler for `receive(on:)`.
    var mainQueue: DispatchQueue { .main }
#else
    import OpenCombine
    import OpenCombineDispatch

    /// The main queue as a scheduler for `receive(on:)`, as OpenCombine spells it.
    var mainQueue: DispatchQueue.OCombine { DispatchQueue.main.ocombine }
#endif

@MainActor final class ProductModel {
    var title = ""
    private var subscriptions: Set<AnyCancellable> = []

    func load(id: Int) {
        Shop.$product.publisher(with: id, as: Product.self)  // nothing is sent before a subscriber attaches
            .receive(on: mainQueue)  // first: values arrive on no particular queue
            .map(\.name)
            .replaceError(with: "unavailable")  // the failure is an APIError, as with request(with:)
            .sink { [weak self] title in self?.title = title }
            .store(in: &subscriptions)
    }
}

/// The article's `Product` model.
struct Product: Codable, Sendable {
    let id: Int
    let name: String
}

/// The article's `Shop` address book (the endpoint the example calls).
@MainActor enum Shop {
    @GET("/products/{id}")
    static var product: APIParameterBuilder<Int>? = .init { ["id": $0] }
}

@Suite struct ArticleCombineExampleTests {
    @MainActor
    @Test("The article's first Combine example fills the model's title, or a placeholder when the call fails")
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

    @MainActor
    @Test("The model does not keep itself alive: its subscriptions end with it")
    func modelIsReleased() async throws {
        // GIVEN a model that loads a product whose answer waits
        let stub = StubExecutor().stub(where: { _ in true }) { _ in
            try await Task.sleep(for: .seconds(10))
            return .json(#"{"id": 1, "name": "Late"}"#)
        }
        weak var released: ProductModel?
        do {
            let model = ProductModel()
            released = model
            await stub.activate { model.load(id: 1) }
        }

        // WHEN the last reference goes, THEN the model is freed (the sink holds it weakly)
        #expect(released == nil)
    }
}
