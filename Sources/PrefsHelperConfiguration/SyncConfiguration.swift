/// `prefs sync`'s options as `prefs-sync` receives them (see ``HelperConfiguration``). Nil
/// means the option was not given: the helper applies its default. `--status` never reaches
/// the helper (`prefs` answers it), and sync reads no values, so `--override` does not apply.
public struct SyncConfiguration: HelperConfiguration {
    /// The store file, resolved by `prefs` (`--store`, `PREFS_STORE`, the default path).
    public var store: String
    /// `--actor`.
    public var actor: String?
    /// The domains to sync, checked by `prefs` (empty: every synced domain).
    public var domains: [String]
    /// `--json`.
    public var json: Bool
    /// `--watch`: the fallback interval.
    public var watch: Duration?
    /// `--compact`.
    public var compact: Bool
    /// `--horizon` (with `--compact`).
    public var horizon: Duration?
    /// `--timeout`.
    public var timeout: Duration?

    /// A configuration; every member is named so that `prefs` fills each one.
    public init(
        store: String, actor: String?, domains: [String], json: Bool, watch: Duration?, compact: Bool, horizon: Duration?,
        timeout: Duration?
    ) {
        self.store = store
        self.actor = actor
        self.domains = domains
        self.json = json
        self.watch = watch
        self.compact = compact
        self.horizon = horizon
        self.timeout = timeout
    }
}
