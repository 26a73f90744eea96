/// `prefs serve`'s options as `prefs-serve` receives them (see ``HelperConfiguration``). Nil
/// means the option was not given: the helper applies its default.
public struct ServeConfiguration: HelperConfiguration {
    /// The store file, resolved by `prefs` (`--store`, `PREFS_STORE`, the default path).
    public var store: String
    /// `--actor`.
    public var actor: String?
    /// `--override` and `PREFS_OVERRIDES` merged, as a JSON object `{"domain":{"key":value}}`.
    public var override: String?
    /// `--listen`: `HOST:PORT` or `unix:PATH`, as given (the helper reads it).
    public var listen: String?
    /// `--token-file`.
    public var tokenFile: String?
    /// `--max-body`.
    public var maxBody: Int?
    /// `--read-timeout`.
    public var readTimeout: Duration?
    /// `--head-timeout`.
    public var headTimeout: Duration?
    /// `--max-connections-per-address`.
    public var maxConnectionsPerAddress: Int?
    /// `--max-event-streams`.
    public var maxEventStreams: Int?
    /// `--max-steps`.
    public var maxSteps: Int?
    /// `--no-access-log`.
    public var noAccessLog: Bool

    /// A configuration; every member is named so that `prefs` fills each one.
    public init(
        store: String, actor: String?, override: String?, listen: String?, tokenFile: String?, maxBody: Int?, readTimeout: Duration?,
        headTimeout: Duration?, maxConnectionsPerAddress: Int?, maxEventStreams: Int?, maxSteps: Int?, noAccessLog: Bool
    ) {
        self.store = store
        self.actor = actor
        self.override = override
        self.listen = listen
        self.tokenFile = tokenFile
        self.maxBody = maxBody
        self.readTimeout = readTimeout
        self.headTimeout = headTimeout
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxEventStreams = maxEventStreams
        self.maxSteps = maxSteps
        self.noAccessLog = noAccessLog
    }
}
