/// A response that ends a request early (a bad body), as an error for `Result`.
struct ResponseFailure: Error {
    let response: ServeResponse

    init(_ response: ServeResponse) { self.response = response }
}
