import ArgumentParser
import Glibc
import PrefsCore
import PrefsHelperConfiguration

extension Prefs {
    struct ServeCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the switch domain's flags over OFREP (OpenFeature) and a read-only web inspector.",
            discussion: """
                Answers POST /ofrep/v1/evaluate/flags/KEY and POST /ofrep/v1/evaluate/flags (with an ETag; \
                If-None-Match gives 304) as 'prefs flag eval' evaluates, for any OpenFeature SDK's OFREP \
                provider, and a web inspector at / (keys, history, flags, an evaluate form, live updates). \
                Changes by any process, and edits of the project and system files, are served within a second. Listens on loopback unless told otherwise; \
                any other address needs a bearer token, read from --token-file or PREFS_SERVE_TOKEN, which \
                every request must send as 'Authorization: Bearer TOKEN'. Prints the address on stdout, one \
                line per request on stderr; stops on SIGINT or SIGTERM after open requests finish. An address it \
                cannot listen on (taken, not this machine's, a port below 1024 without the privilege) ends it \
                with one line and exit 4. Runs the \
                prefs-serve helper installed next to prefs.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "HOST:PORT, or unix:PATH for a unix socket, to listen on (default 127.0.0.1:8016; port 0 picks a free one).",
                valueName: "address"))
        var listen: String?

        @Option(help: ArgumentHelp("A file holding the bearer token clients must send.", valueName: "file"))
        var tokenFile: String?

        @Option(help: ArgumentHelp("The largest request body accepted, in bytes (default 65536; larger: 413).", valueName: "bytes"))
        var maxBody: Int?

        @Option(
            help: ArgumentHelp(
                "Close a connection whose request takes longer than this to arrive, or that is idle this long (default 10s).",
                valueName: "duration"))
        var readTimeout: TTLArgument?

        @Option(
            help: ArgumentHelp(
                "Close a connection whose request head takes longer than this to arrive (default 5s).", valueName: "duration"))
        var headTimeout: TTLArgument?

        @Option(
            help: ArgumentHelp(
                "The most connections one client host may have open (all loopback addresses are one); more are closed when accepted (default 64).",
                valueName: "count"))
        var maxConnectionsPerAddress: Int?

        @Option(
            help: ArgumentHelp(
                "The most event streams open at once, OFREP's and the inspector's; more get 503 (default 32).",
                valueName: "count"))
        var maxEventStreams: Int?

        @Option(
            help: ArgumentHelp(
                "The evaluation steps one request may take, all its flags together (default 2000000; over it: an error answer).",
                valueName: "steps"))
        var maxSteps: Int?

        @Flag(help: "Do not log requests on stderr.")
        var noAccessLog = false

        func validate() throws {
            if let maxBody, maxBody < 1 { throw ValidationError("--max-body must be at least 1") }
            if let maxConnectionsPerAddress, maxConnectionsPerAddress < 1 {
                throw ValidationError("--max-connections-per-address must be at least 1")
            }
            if let maxEventStreams, maxEventStreams < 1 { throw ValidationError("--max-event-streams must be at least 1") }
            if let maxSteps, maxSteps < 1 { throw ValidationError("--max-steps must be at least 1") }
        }

        func run() throws {
            guard let helper = Helper.path("prefs-serve") else {
                throw PrefsError(.unreachable, "prefs-serve is not installed next to prefs or on PATH")
            }
            // --override and PREFS_OVERRIDES apply as in `prefs flag eval`: handed over as one
            // JSON object, with every other option, in the helper's environment.
            let overrides = try global.overrides()
            var overridesText: String?
            if !overrides.isEmpty {
                let domains = overrides.keys.sorted().map { domain in
                    JSONValue.Member(
                        domain.name,
                        .object(overrides[domain, default: [:]].sorted { $0.key < $1.key }.map { JSONValue.Member($0.key, $0.value) }))
                }
                overridesText = JSONValue.object(domains).compactText
            }
            let configuration = ServeConfiguration(
                store: global.storePath, actor: global.actor, override: overridesText, listen: listen, tokenFile: tokenFile,
                maxBody: maxBody, readTimeout: readTimeout?.duration, headTimeout: headTimeout?.duration,
                maxConnectionsPerAddress: maxConnectionsPerAddress, maxEventStreams: maxEventStreams, maxSteps: maxSteps,
                noAccessLog: noAccessLog)
            Output.standard.flush()
            try Helper.exec(helper, configuration: configuration)
        }
    }
}
