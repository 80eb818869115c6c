/// An ``APIError/RequestProblem`` thrown inside request building, before the endpoint is attached.
struct RequestProblemError: Error {
    let problem: APIError.RequestProblem

    init(_ problem: APIError.RequestProblem) {
        self.problem = problem
    }
}
