import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import PrefsCore
import Synchronization

extension Prefs {
    struct RefreshCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Refresh a server-fed domain from a URL or a file; keep the last good copy on failure.",
            discussion: """
                The document (an object of key → value; for switch also a flagd document) is checked \
                completely before the domain's content is replaced in one transaction. ETag and \
                Last-Modified are sent back; 304 changes nothing. On any failure the copy stays, stderr \
                names the cause and the copy's age, and the exit code is 7. The source is remembered: \
                'prefs refresh DOMAIN' reuses it. --status shows every source. A --header on the command \
                line is visible to other local users (ps, /proc): pass secrets with --header-file FILE \
                (or --header @FILE), remembered in the store like --header, or in \
                PREFS_REFRESH_HEADER_<NAME> variables ('_' becomes '-'), sent but never stored. A URL \
                with a password is refused. The body is limited to 64 MiB (decoded).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The domain (dynamic, switch or another persistent one).", completion: Completions.domain)
        var domain: String?

        @Option(name: .customLong("from"), help: ArgumentHelp("An http(s) URL or a file.", valueName: "url|file"))
        var source: String?

        @Option(
            help: ArgumentHelp("Give up after this long, fetching, checking and applying included (default 5s).", valueName: "duration"))
        var timeout: TTLArgument?

        @Option(
            name: .customLong("header"),
            help: ArgumentHelp(
                "An HTTP header 'Name: value', or @FILE for the header lines of FILE (repeatable; visible to local users).",
                valueName: "header"))
        var headers: [String] = []

        @Option(
            name: .customLong("header-file"),
            help: ArgumentHelp("A file of 'Name: value' lines (blank and # lines skipped; repeatable).", valueName: "file"))
        var headerFiles: [String] = []

        @Option(help: ArgumentHelp("Do nothing when the copy is younger than this (e.g. 10m).", valueName: "duration"))
        var maxAge: TTLArgument?

        @Flag(help: "Show each domain's source, last success, last failure and copy age.")
        var status = false

        @Flag(help: "With --status: JSON Lines.")
        var json = false

        func validate() throws {
            if status && (domain != nil || source != nil) { throw ValidationError("--status takes no domain or --from") }
            if !status && domain == nil { throw ValidationError("Missing expected argument '<domain>'") }
            for header in headers where !header.hasPrefix("@") && !header.contains(":") {
                throw ValidationError("--header must look like 'Name: value' or @FILE")
            }
        }

        func run() throws {
            let stack = try global.openStack()
            if status {
                for entry in try stack.refresher.status() {
                    if json {
                        Output.standard.write(entry.json + "\n")
                    } else {
                        func time(_ value: Int64?) -> String { value.map { ISOTime.format(milliseconds: $0) } ?? "-" }
                        let age = entry.copyAt.map { String(max(0, (WallClock.nowMilliseconds() - $0) / 1000)) + "s" } ?? "-"
                        Output.standard.write(
                            [
                                entry.domain.name, entry.source, time(entry.lastSuccessAt), time(entry.lastFailureAt),
                                entry.lastFailure ?? "-", age,
                            ]
                            .map(TerminalText.escapingControls).joined(separator: "\t") + "\n")
                    }
                }
                return
            }
            let domain = try parseDomain(domain ?? "")
            var parsedHeaders: [String: String] = [:]
            for header in headers {
                if header.hasPrefix("@") {
                    try RequestHeaders.read(file: String(header.dropFirst()), into: &parsedHeaders)
                } else {
                    try RequestHeaders.add(line: header, from: "--header", into: &parsedHeaders)
                }
            }
            for file in headerFiles { try RequestHeaders.read(file: file, into: &parsedHeaders) }
            let source = self.source
            let timeout = self.timeout?.duration ?? .seconds(5)
            let maxAge = self.maxAge?.duration
            let requestHeaders = parsedHeaders
            let environmentHeaders = try RequestHeaders.fromEnvironment(ProcessEnvironment.current())
            let outcome = Blocking.run {
                try await stack.refresher.refresh(
                    domain, from: source, timeout: timeout, headers: requestHeaders, unrememberedHeaders: environmentHeaders,
                    maxAge: maxAge, http: HelperFetcher())
            }
            _ = try outcome.get()
        }
    }
}
