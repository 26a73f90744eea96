import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
    struct RemoteGroup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remote",
            abstract: "Set, show or unset the PostgreSQL database this store syncs with.",
            discussion: """
                The remote is a libpq connection string, as psql takes it: a URI \
                (postgres://USER@HOST:PORT/DB?sslmode=require, postgresql:///DB?host=/run/postgresql, \
                postgres://H1,H2/DB?target_session_attrs=read-write) or keyword=value pairs (service=NAME). \
                libpq also reads the PG* environment variables and the service file when 'prefs sync' \
                connects. The password comes from PGPASSWORD, ~/.pgpass or the service file; it is never \
                stored, and a URL with a password is refused. Setting a remote connects to nothing.
                """,
            subcommands: [RemoteSet.self, RemoteShow.self, RemoteUnset.self])
    }

    struct RemoteSet: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Sync this store with a PostgreSQL database; queue the synced domains' content for the first push.",
            discussion: """
                From now on every write of a synced domain records a pending operation (operation id, \
                hybrid logical clock timestamp, node id) in its own transaction. Prints how many \
                operations were queued.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("postgres://USER@HOST:PORT/DB, or a libpq connection string (service=NAME)", valueName: "url"))
        var url: String

        @Option(
            help: ArgumentHelp(
                "The synced domains, separated by commas (default: every persistent domain except user, custom ones included).",
                valueName: "domains"))
        var domains: String?

        func run() throws {
            let remote = try RemoteURL(parsing: url)
            let list = try domains.map { text in try text.split(separator: ",").map { try parseDomain(String($0)) } }
            if list?.isEmpty == true { throw PrefsError(.usage, "--domains needs at least one domain") }
            let queued = try global.openStack().setRemote(remote, domains: list)
            Output.standard.write("queued \(queued) operation\(queued == 1 ? "" : "s") for the first sync\n")
        }
    }

    struct RemoteShow: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the remote URL (exit 1 when none is set).")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print {\"url\":…,\"domains\":[…] or null}.")
        var json = false

        func run() throws {
            guard let remote = try global.openStack().remote() else { throw PrefsError(.notFound, "no remote set") }
            if json {
                let domains: JSONValue = remote.domains.map { .array($0.map { .string($0.name) }) } ?? .null
                Output.standard.write(
                    JSONValue.object([.init("url", .string(remote.url.description)), .init("domains", domains)]).compactText + "\n")
            } else {
                Output.standard.write(remote.url.description + "\n")
            }
        }
    }

    struct RemoteUnset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unset",
            abstract: "Stop syncing: forget the remote and the pending operations; local data is kept.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try global.openStack().unsetRemote()
        }
    }

    struct Sync: ParsableCommand {
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
                try showStatus(try global.openStack().syncStatus())
                return
            }
            guard let helper = Helper.path("prefs-sync") else {
                throw PrefsError(.unreachable, "prefs-sync is not installed next to prefs or on PATH; nothing synced, local data kept")
            }
            var arguments = ["prefs-sync", "--store", global.storePath]
            if let actor = global.actor { arguments += ["--actor", actor] }
            arguments.append("sync")
            arguments += parsed.map(\.name)
            if json { arguments.append("--json") }
            if let watch { arguments += ["--watch", "\(watch.duration.milliseconds)ms"] }
            if let timeout { arguments += ["--timeout", "\(timeout.duration.milliseconds)ms"] }
            if compact { arguments.append("--compact") }
            if let horizon { arguments += ["--horizon", "\(horizon.duration.milliseconds)ms"] }
            Output.standard.flush()
            try Helper.exec(helper, arguments)
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
            for (name, value) in rows { Output.standard.write("\(name)\t\(Output.escapingControls(value))\n") }
        }
    }
}

extension Duration {
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}

/// Helper binaries installed next to `prefs` (or on PATH): `prefs-http-get`, `prefs-sync`.
enum Helper {
    static func path(_ name: String) -> String? {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let sibling = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        for directory in (ProcessEnvironment.value("PATH") ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Replaces this process with the helper: its output, signals and exit code are the command's.
    static func exec(_ path: String, _ arguments: [String]) throws -> Never {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        throw PrefsError(.unreachable, "cannot run \(path): \(String(cString: strerror(errno))); nothing synced, local data kept")
    }
}
