// Testing: CourierTesting's StubExecutor answers from stubs and records every request, so code that calls
// endpoints can be tested without a server. It imports neither XCTest nor Testing: use it with either.
import Courier
import CourierTesting
import Foundation

@MainActor
enum Shop {
    @GET("/products/{id}")
    static var product: APIParameterBuilder<Int>? = .init { ["id": $0] }

    @GET("/products")
    static var search: APIParameterBuilder<(query: String, limit: Int)>? = .init { ["q": $0.query, "limit": $0.limit] }

    @POST("/orders")
    static var order: APIParameterBuilder<Order>? = .init { $0 }

    @GET("/stock")
    static var stock: APIParameterBuilder<Void>? = nil
}

struct Product: Codable, Sendable {
    var id: Int
    var name: String
}

struct Order: Codable, Sendable {
    var productID: Int
    var quantity: Int
}

/// The code under test: it searches, then orders the first hit.
@MainActor
func orderFirstMatch(for query: String) async throws(APIError) -> Product? {
    let found: [Product] = try await Shop.$search.request(with: (query: query, limit: 5))
    guard let first = found.first else { return nil }
    try await Shop.$order.request(with: Order(productID: first.id, quantity: 1))
    return first
}

@MainActor
enum TestingPage {
    static let shop = APIConfiguration(baseURL: URL(string: "https://shop.example/api"))

    static func run(_ stage: Stage) async throws {
        Console.note("nothing on this page reaches \(stage.serverName): every answer comes from a stub")

        Console.step("Stub by endpoint (method + path template), by method and path, or by any predicate")
        let stub = StubExecutor()
            .stub(Shop.$search, with: .json(#"[{"id": 7, "name": "Teapot"}, {"id": 9, "name": "Kettle"}]"#))
            .stub(.post, "/orders", with: .status(201))
            .stub(where: { $0.url.path.hasPrefix("/api/products/") }) { request in
                let id = Int(request.url.lastPathComponent) ?? 0
                return .json(Product(id: id, name: "Product \(id)"))
            }
        // `activate` puts the stub in effect for this task and its children only.
        let ordered = try await stub.activate(in: shop) { try await orderFirstMatch(for: "tea pot") }
        Console.result("orderFirstMatch(for: \"tea pot\") returned \(ordered.map { "\($0.name) #\($0.id)" } ?? "nil")")
        let product: Product = try await stub.activate(in: shop) { try await Shop.$product.request(with: 42) }
        Console.result("Shop.$product.request(with: 42) returned \(product.name)")

        Console.step("Every request is recorded, to assert on method, URL, query, headers and body")
        for request in stub.requests {
            let body = request.bodyText.map { "  body \($0)" } ?? ""
            Console.line("  → \(request.method) \(request.url.absoluteString)\(body)")
        }
        let search = stub.requests(to: Shop.$search).first
        let order = try stub.requests(to: Shop.$order).first?.decodedBody(as: Order.self)
        Console.result("search: q = \(search?.queryValue("q") ?? "-"), limit = \(search?.queryValue("limit") ?? "-")")
        Console.result("order body decoded: productID \(order?.productID ?? 0), quantity \(order?.quantity ?? 0)")
        Console.note("in a test: #expect(stub.requests(to: Shop.$order).count == 1)")

        Console.step("A request no stub matches is a clear error naming the endpoint, not a crash or a hang")
        do {
            try await stub.activate(in: shop) { try await Shop.$stock.request() }
        } catch let error as APIError {
            Console.caught(error)
        }

        Console.step("Stubs can fail like the network: `.error(URLError(.notConnectedToInternet))`")
        let offline = StubExecutor().stub(Shop.$stock, with: .error(URLError(.notConnectedToInternet)))
        do {
            try await offline.activate(in: shop) { try await Shop.$stock.request() }
        } catch let error as APIError {
            Console.caught(error)
            Console.result("error.reason == .transport(.offline): \(error.reason == .transport(.offline))")
        }

        Console.step("… or answer late: `.delayed(by:)`; cancelling the task ends the wait at once")
        let slow = StubExecutor().stub(Shop.$stock, with: .json("[]").delayed(by: .milliseconds(300)))
        let clock = ContinuousClock()
        let start = clock.now
        let _: [Product] = try await slow.activate(in: shop) { try await Shop.$stock.request() }
        Console.result("answered after \(Console.milliseconds(clock.now - start)) ms")
        let stuck = StubExecutor().stub(Shop.$stock, with: .json("[]").delayed(by: .seconds(30)))
        let task = Task { try await stuck.activate(in: shop) { try await Shop.$stock.request() } }
        try await Task.sleep(for: .milliseconds(100))
        let cancelledAt = clock.now
        task.cancel()
        if case .failure(let error as APIError) = await task.result {
            let after = Console.milliseconds(clock.now - cancelledAt)
            Console.result("error.isCancellation: \(error.isCancellation), \(after) ms after task.cancel()")
        }

        Console.step("Stubs are task-scoped: two tasks running at once each see only their own")
        let ann = StubExecutor().stub(Shop.$product, with: .json(Product(id: 1, name: "Ann's")))
        let bob = StubExecutor().stub(Shop.$product, with: .json(Product(id: 1, name: "Bob's")))
        async let forAnn: Product = ann.activate(in: shop) { try await Shop.$product.request(with: 1) }
        async let forBob: Product = bob.activate(in: shop) { try await Shop.$product.request(with: 1) }
        Console.result("\(try await forAnn.name) and \(try await forBob.name)")
    }
}
