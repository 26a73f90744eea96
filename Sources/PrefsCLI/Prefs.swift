import ArgumentParser
import PrefsCore

#if canImport(Glibc)
    import Glibc
#endif

/// The root command: configuration only; the work is in the subcommands.
struct Prefs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefs",
        abstract: "A typed, scriptable key-value preference store on SQLite.",
        discussion: """
            Values are JSON. Domains: default, dynamic, switch, user (persistent), memory \
            (RAM only, shared by this user's processes until reboot) and custom ones. \
            Global options go before the command: prefs --store PATH get user theme.

            Reads answer from an override, the store, the project file (.prefs.json up to the \
            git root; PREFS_PROJECT_FILE), the system files (/etc/prefs/*.json; \
            PREFS_SYSTEM_DIR), then defaults. A key locked in /etc/prefs/locks answers the \
            system value and refuses writes (exit 4).

            Exit codes: 0 success, 1 key not found, 2 usage, 3 store unreadable, \
            4 cannot write, 5 precondition failed, 6 invalid value, 7 remote unreachable.
            """,
        version: PrefsVersion.current,
        subcommands: [
            GetCommand.self, SetCommand.self, RemoveCommand.self, ListCommand.self, DomainsCommand.self, WritableCommand.self,
            ExportCommand.self, ImportCommand.self, ExecCommand.self, BatchCommand.self, IncrCommand.self,
            ApplyCommand.self, LogCommand.self, WatchCommand.self, SchemaCommand.self, DescribeCommand.self, ResetCommand.self,
            FlagCommand.self, RefreshCommand.self, RemoteCommand.self,
            SyncCommand.self, ServeCommand.self, DoctorCommand.self, CompactCommand.self, BackupCommand.self, RestoreCommand.self,
            EditCommand.self,
        ]
    )

    @OptionGroup var global: GlobalOptions
}

/// The command line as a function: arguments in, exit status out (the `prefs` executable's
/// `main` exits with it; tests run it in process).
package enum PrefsCommandLine {
    /// Refuses an argument that is not valid UTF-8 (Swift would repair it with U+FFFD): prints
    /// why and returns exit status 6, or returns nil.
    package static func refuseInvalidArguments() -> Int32? {
        for index in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw))
            if String(validating: bytes, as: UTF8.self) == nil {
                Output.error("argument \(index) is not valid UTF-8")
                return 6
            }
        }
        return nil
    }

    /// Runs one command line (the arguments after `prefs`) and returns its exit status; it
    /// never exits. The process's streams and environment, or those of the in-process run
    /// under way (``run(_:environment:standardInput:workingDirectory:)``).
    package static func run(_ arguments: [String]) -> Int32 {
        #if DEBUG
            if PropertyDump.printIfRequested() { return 0 }
            // Tests compare what the table and the parser read from the same command lines.
            if ProcessEnvironment.value("PREFS_COMPARE_PARSERS") != nil {
                do {
                    try TableParser.compareWithTheParser()
                    try Output.standard.finish()
                } catch {
                    return report(error)
                }
                return 0
            }
        #endif
        if arguments.isEmpty {
            Output.error("missing command (see 'prefs --help')")
            return 2
        }
        let split = EmptyOptionValues.split(arguments)
        do {
            try EmptyOptionValues.checkGlobalOptions(split)
        } catch {
            return report(error)
        }
        if let help = tableHelp(split) {
            Output.standard.write(help)
            do { try Output.standard.finish() } catch { return report(error) }
            return 0
        }
        let tabled: (any ParsableCommand)?
        do {
            tabled = try tableCommand(split)
        } catch {
            return report(error)
        }
        if var command = tabled {
            do {
                try command.run()
                try OpenStacks.closeAll()
                try Output.standard.finish()
            } catch {
                Output.standard.flush()
                try? OpenStacks.closeAll()
                return report(error)
            }
            return 0
        }
        if let unknown = UnknownCommand.message(arguments) {
            Output.error(unknown)
            return 2
        }
        do {
            var command = try Prefs.parseAsRoot(split)
            try command.run()
            try OpenStacks.closeAll()
            try Output.standard.finish()
        } catch {
            Output.standard.flush()
            try? OpenStacks.closeAll()
            return arguments.contains(where: { $0.hasPrefix("--generate-completion-script") }) ? reportScript(error) : report(error)
        }
        return 0
    }

    /// A completion script as ``CompletionScript`` makes it (bash: candidates are never
    /// expanded); anything else as ``report(_:)``.
    static func reportScript(_ error: any Error) -> Int32 {
        do {
            guard let script = try CompletionScript.text(for: error) else { return report(error) }
            Output.standard.write(script)
            Output.standard.write("\n")
            try Output.standard.finish()
            return 0
        } catch {
            // Like a shell the parser does not support: a usage error (exit 2), no unsafe script.
            Output.error("this build cannot generate a safe completion script: \(error)")
            return 2
        }
    }

    /// The help text kept in the generated table (``TableParser/help(_:)``), or nil.
    static func tableHelp(_ arguments: [String]) -> String? {
        #if DEBUG
            if let flag = ProcessEnvironment.value("PREFS_FULL_PARSE"), !flag.isEmpty { return nil }
        #endif
        return TableParser.help(arguments)
    }

    /// The command read with the generated table (``TableParser``), or nil.
    static func tableCommand(_ arguments: [String]) throws -> (any ParsableCommand)? {
        #if DEBUG
            // Tests run every command both ways and compare what they print.
            if let flag = ProcessEnvironment.value("PREFS_FULL_PARSE"), !flag.isEmpty { return nil }
            let command = TableParser.command(arguments)
            // Tests check that the commands they expect on the table's path take it.
            if command == nil, let flag = ProcessEnvironment.value("PREFS_REQUIRE_TABLE"), !flag.isEmpty {
                Output.error("debug: not read with the command table (PREFS_REQUIRE_TABLE)")
                throw ExitCode(97)
            }
            return command
        #else
            return TableParser.command(arguments)
        #endif
    }

    /// Prints one diagnostic line (or help text) and returns the exit code.
    static func report(_ error: any Error) -> Int32 {
        if let error = error as? PrefsError {
            Output.error(error.message)
            return error.exitCode
        }
        if let code = error as? ExitCode {
            return code.rawValue
        }
        let code = Prefs.exitCode(for: error)
        if code == .success {
            // --help, --version and similar: the text is the output. In process, as wide as the
            // run's COLUMNS says (the parser would read the test process's), else 80 (what the
            // binary uses when its output is not a terminal).
            let columns = CommandContext.active.map { _ in ProcessEnvironment.value("COLUMNS").flatMap { Int($0) } ?? 80 }
            Output.standard.write(Prefs.fullMessage(for: error, columns: columns))
            Output.standard.write("\n")
            do { try Output.standard.finish() } catch { return report(error) }
            return 0
        }
        // Any other parser or validation error is a usage error: exit 2, one line.
        let message = Prefs.message(for: error)
        var firstLine = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? "invalid usage"
        firstLine = firstLine.trimmingSuffix(".")
        // Name the accepted forms of a value the parser refused.
        if firstLine.contains("is invalid for") {
            if firstLine.contains("<duration>") {
                firstLine += "; expected a duration: \(DurationText.forms)"
            } else if firstLine.contains("<time>") {
                firstLine += "; expected a duration ago (\(DurationText.forms)) or an ISO 8601 time (2026-11-22T02:10:00Z, 2026-11-22)"
            }
        }
        // A refused argument is echoed by the parser: keep the line readable however long it was.
        if firstLine.count > 300 { firstLine = String(firstLine.prefix(240)) + "…" + String(firstLine.suffix(40)) }
        Output.error("\(firstLine) (see 'prefs --help')")
        return 2
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
