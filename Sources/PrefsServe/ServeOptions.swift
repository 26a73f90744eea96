/// Limits and credentials of a serving core.
public struct ServeOptions: Sendable {
    /// The largest request body accepted (413 above it).
    public var maximumBodyBytes: Int
    /// The deepest evaluation context accepted, in levels of objects and arrays (400
    /// INVALID_CONTEXT below it); the JSON parser's own bound (512) applies first.
    public var maximumContextDepth: Int
    /// The bearer token every request must carry, nil for none (loopback only).
    public var token: String?
    /// Without ``token``: the bearer token the inspector's data (`/api/…`) needs. A loopback
    /// server is reachable by every user of the machine; OFREP answers flag evaluations to
    /// them, but the store's keys, values and history stay the owner's (`prefs-serve` makes
    /// one per run and prints the inspector's address with it). Nil: no such check.
    public var inspectorToken: String?

    /// Options: 64 KiB bodies, contexts 32 levels deep, no token.
    public init(
        maximumBodyBytes: Int = 65_536, maximumContextDepth: Int = 32, token: String? = nil, inspectorToken: String? = nil
    ) {
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumContextDepth = maximumContextDepth
        self.token = token
        self.inspectorToken = inspectorToken
    }
}
