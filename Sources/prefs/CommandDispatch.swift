import ArgumentParser
import PrefsCore

#if canImport(Glibc)
    import Glibc
#endif

/// Start-up path of every command: parses the arguments with the invoked command's own type
/// only, instead of the whole command tree.
///
/// ArgumentParser's root parse visits every command type (their names, their arguments'
/// property wrappers through `Mirror`), and each first look at a type is a protocol
/// conformance lookup that scans every conformance record of the binary: about 33 M
/// instructions before a command starts (docs/performance.md). Here the command is found by
/// its name in `argv` — after the global options, which every command declares too — and
/// only its type is parsed, so only its conformances are looked up.
///
/// Anything this path does not handle the same way as the full parser returns nil, and the
/// caller parses from the root as before, so help, usage errors, completions and unknown
/// commands keep the full parser's text: no command named, `help`, `-h`, `--help`,
/// `--version`, the parser's own entry points (`--generate-…`, `---…`, `--experimental-…`),
/// a group without a known subcommand, and any parse or validation error (parsing has no
/// side effects; the full parse then reports it).
enum CommandDispatch {
    /// Global options that take a value (``GlobalOptions``).
    static let globalValued: Swift.Set<String> = ["--store", "--actor", "--override"]

    /// The command parsed from `arguments` by its own type, or nil when the full parser must answer.
    static func command(_ arguments: [String]) -> (any ParsableCommand)? {
        #if DEBUG
            // Tests run every command both ways and compare what they print.
            if let flag = getenv("PREFS_FULL_PARSE"), flag[0] != 0 { return nil }
        #endif
        var global: [String] = []
        var index = 0
        // Global options before the command.
        while index < arguments.count, arguments[index].hasPrefix("-") {
            let argument = arguments[index]
            if globalValued.contains(argument), index + 1 < arguments.count {
                global += [argument, arguments[index + 1]]
                index += 2
            } else if let equals = argument.firstIndex(of: "="), globalValued.contains(String(argument[..<equals])) {
                global.append(argument)
                index += 1
            } else {
                return nil
            }
        }
        guard index < arguments.count, var type = subcommand(named: arguments[index], of: Prefs.self) else { return nil }
        index += 1
        while !type.configuration.subcommands.isEmpty {
            guard index < arguments.count, let child = subcommand(named: arguments[index], of: type) else { return nil }
            type = child
            index += 1
        }
        let rest = Array(arguments[index...])
        if rest.contains(where: isParserEntryPoint) { return nil }
        return try? type.parseAsRoot(global + rest)
    }

    /// The subcommand of `parent` called `name` (its explicit `commandName`), or nil.
    private static func subcommand(named name: String, of parent: any ParsableCommand.Type) -> (any ParsableCommand.Type)? {
        parent.configuration.subcommands.first { $0.configuration.commandName == name }
    }

    /// Arguments the parser answers itself (help, version, completion scripts and callbacks,
    /// help dumps): the full parser must see them with the whole command tree.
    static func isParserEntryPoint(_ argument: String) -> Bool {
        argument == "-h" || argument == "--help" || argument == "--version" || argument == "-help"
            || argument.hasPrefix("--generate-") || argument.hasPrefix("---") || argument.hasPrefix("--experimental-")
    }
}
