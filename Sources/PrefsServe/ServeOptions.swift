import PrefsCore

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
    /// The evaluation steps one request may spend, all its flags together (an
    /// ``EvaluationBudget``): over it a single flag is answered 400 `GENERAL`, every flag at
    /// once 500. Each rule also stops at ``JSONLogic/evaluationBudget`` on its own.
    public var maximumSteps: Int

    /// The default of ``maximumSteps``: as many as one rule may take, so every flag that
    /// `prefs flag eval` answers is answered on its own.
    public static let defaultMaximumSteps = JSONLogic.evaluationBudget

    /// Options: 64 KiB bodies, contexts 32 levels deep, no token, 2,000,000 steps a request.
    public init(
        maximumBodyBytes: Int = 65_536, maximumContextDepth: Int = 32, token: String? = nil, inspectorToken: String? = nil,
        maximumSteps: Int = ServeOptions.defaultMaximumSteps
    ) {
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumContextDepth = maximumContextDepth
        self.token = token
        self.inspectorToken = inspectorToken
        self.maximumSteps = maximumSteps
    }
}
