import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore
import PrefsHelperConfiguration

extension Prefs {
    struct SyncCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Pull remote operations, apply them, push pending ones (offline first; exit 7 when unreachable).",
            discussion: """
                Pulls the operations other stores pushed since the last sync and applies those that win \
                (last writer wins by hybrid logical clock timestamp, then node id: the same on every \
                machine), then pushes this store's pending operations in one PostgreSQL transaction. \
                Prints 'pulled N (applied N), pushed N, pending N'. A new store, or one offline longer than \
                the log's horizon, loads the current state instead of the log; its pending writes are \
                pushed after. When the database cannot be reached the exit code is 7, stderr names the \
                cause and the pending count, and nothing local is lost: the next sync completes. \
                --watch listens for other stores' pushes (pulling within a second), pushes local writes \
                as they are made, pulls every SECONDS as a fallback and reconnects with backoff. \
                --compact removes operations older than the horizon (default 7d, stored on the server \
                as the automatic horizon that pushing stores apply). Runs the prefs-sync helper \
                installed next to prefs.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Sync only these domains (default: every synced domain).")
        var domains: [String] = []

        @Flag(help: "Show the remote, pending operations and the last sync instead of syncing.")
        var status = false

        @Flag(help: "Print JSON.")
        var json = false

        @Option(
            help: ArgumentHelp(
                "Keep syncing until interrupted: on other stores' pushes, on local writes, and every SECONDS (failures are reported and retried).",
                valueName: "seconds"))
        var watch: TTLArgument?

        @Flag(help: "Compact the remote's log instead of syncing: remove operations older than the horizon.")
        var compact = false

        @Option(
            help: ArgumentHelp(
                "With --compact: the horizon, kept as the remote's automatic one (default: the remote's, 7d).", valueName: "duration"))
        var horizon: TTLArgument?

        @Option(help: ArgumentHelp("Give up after this long (default 30s).", valueName: "duration"))
        var timeout: TTLArgument?

        func validate() throws {
            if status && (!domains.isEmpty || watch != nil || timeout != nil || compact) {
                throw ValidationError("--status takes no domain, --watch, --compact or --timeout")
            }
            if compact && (!domains.isEmpty || watch != nil) {
                throw ValidationError("--compact takes no domain or --watch")
            }
            if horizon != nil && !compact {
                throw ValidationError("--horizon needs --compact")
            }
        }

        func run() throws {
            let parsed = try domains.map(parseDomain)
            if status {
                try showStatus(try global.openStack().sync.status())
                return
            }
            guard let helper = Helper.path("prefs-sync") else {
                throw PrefsError(.unreachable, "prefs-sync is not installed next to prefs or on PATH; nothing synced, local data kept")
            }
            let configuration = SyncConfiguration(
                store: global.storePath, actor: global.actor, domains: parsed.map(\.name), json: json, watch: watch?.duration,
                compact: compact, horizon: horizon?.duration, timeout: timeout?.duration)
            Output.standard.flush()
            try Helper.exec(helper, configuration: configuration)
        }

        private func showStatus(_ status: SyncStatus) throws {
            func time(_ value: Int64?) -> String? { value.map { ISOTime.format(milliseconds: $0) } }
            let domainList = status.remote.map { $0.domains?.map(\.name).joined(separator: ",") ?? "all except user" }
            if json {
                func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
                let members: [JSONValue.Member] = [
                    .init("remote", text(status.remote?.url.description)),
                    .init(
                        "domains",
                        status.remote.map { remote in remote.domains.map { .array($0.map { .string($0.name) }) } ?? .null } ?? .null),
                    .init("node", text(status.node)),
                    .init("pending", .number(String(status.pending))),
                    .init("skipped", .number(String(status.skipped))),
                    .init("remoteSeq", .number(String(status.lastRemoteSeq))),
                    .init("lastSuccessAt", text(time(status.lastSuccessAt))),
                    .init("lastFailureAt", text(time(status.lastFailureAt))),
                    .init("lastFailure", text(status.lastFailure)),
                ]
                Output.standard.write(JSONValue.object(members).compactText + "\n")
                return
            }
            let rows: [(String, String)] = [
                ("remote", status.remote?.url.description ?? "none"),
                ("domains", domainList ?? "-"),
                ("node", status.node ?? "-"),
                ("pending", String(status.pending)),
                ("skipped", "\(status.skipped) invalid operation\(status.skipped == 1 ? "" : "s")"),
                ("remote-seq", String(status.lastRemoteSeq)),
                ("last-success", time(status.lastSuccessAt) ?? "never"),
                ("last-failure", status.lastFailure.map { "\(time(status.lastFailureAt) ?? "-") \($0)" } ?? "-"),
            ]
            for (name, value) in rows { Output.standard.write("\(name)\t\(TerminalText.escapingControls(value))\n") }
        }
    }
}
