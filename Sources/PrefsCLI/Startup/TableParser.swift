import ArgumentParser
import PrefsCore

#if canImport(Glibc)
    import Glibc
#endif

/// Start-up path of every command: reads the command line with the table that
/// `scripts/generate` wrote from the argument parser's own description of each command
/// (``CommandTable``), and builds the command by setting its properties.
///
/// ArgumentParser finds a command's arguments by reflecting over its type (`Mirror`, dynamic
/// casts of every property wrapper); each first look at a type is a protocol-conformance
/// lookup that scans every conformance record of the binary. That costs more than the work
/// of most commands (docs/performance.md). The table holds what the reflection would find, so
/// a plain command line costs a few thousand instructions to read.
///
/// It reads the plain forms, `--` (what follows is positional, or the command's arguments
/// after the terminator) and negative numbers where the command takes them (an option that
/// takes any value, `set`'s VALUE), and declines (returns nil) everything else, so that the
/// parser answers with its own behaviour and text: help, `--version`, the parser's entry
/// points, a dash argument that is not one of the command's options, a missing value, a
/// repeated flag, a value that does not convert, a validation error, an unknown command.
/// Declining has no side effects; the caller then parses from the root.
enum TableParser {
    /// Thrown while building a command from values the table cannot vouch for.
    struct Declined: Error {}

    /// The command parsed from `arguments`, or nil when the parser must answer.
    static func command(_ arguments: [String]) -> (any ParsableCommand)? {
        var global: [String] = []
        var index = 0
        // Global options before the command name (every command declares them too).
        while index < arguments.count, arguments[index].hasPrefix("-") {
            guard let root = CommandTable.spec(for: []) else { return nil }
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1)[0]
            guard let slot = root.slot(named: name), root.arguments[slot].kind != .flag else { return nil }
            if name.count == argument.count {
                guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else { return nil }
                global += [argument, arguments[index + 1]]
                index += 2
            } else {
                guard name.count + 1 < argument.count else { return nil }
                global.append(argument)
                index += 1
            }
        }
        var path: [String] = []
        var spec: CommandSpec?
        while index < arguments.count, spec == nil {
            path.append(arguments[index])
            index += 1
            spec = CommandTable.spec(for: path)
            if spec == nil && !CommandTable.isGroup(path) { return nil }
        }
        guard let spec, let values = values(global + arguments[index...], for: spec) else { return nil }
        return try? spec.make(values)
    }

    /// The help that `prefs [COMMAND…] --help` (or `-h`) prints, when it is the text the table
    /// keeps: help printed 80 columns wide, which is what the parser does when standard output
    /// is not a terminal and `COLUMNS` is not set (its width rule, read the same way here).
    static func help(_ arguments: [String]) -> String? {
        guard let last = arguments.last, last == "--help" || last == "-h",
            let text = CommandTable.help(for: Array(arguments.dropLast())), helpWidth() == 80
        else { return nil }
        return text
    }

    /// The parser's width for help: `COLUMNS`, else the terminal's width, else 80.
    private static func helpWidth() -> Int {
        // In process: the run's COLUMNS, else 80 (the width the parser's help gets there too).
        if CommandContext.active != nil { return ProcessEnvironment.value("COLUMNS").flatMap { Int($0) } ?? 80 }
        if let columns = getenv("COLUMNS"), let width = Int(String(cString: columns)) { return width }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// The values of `arguments` by slot, or nil when the parser must read them.
    static func values(_ arguments: [String], for spec: CommandSpec) -> ParsedValues? {
        var slots = [[String]](repeating: [], count: spec.arguments.count)
        // Positional values, and for a command that takes unrecognized arguments (`set`'s
        // VALUE, so that `-5` needs no `--`) the dash arguments that are none of its options,
        // each with its place on the command line.
        var positionals: [(index: Int, text: String)] = []
        var unrecognized: [(index: Int, text: String)] = []
        let takesUnrecognized = spec.arguments.contains { $0.kind == .unrecognized }
        let terminatorSlot = spec.arguments.firstIndex { $0.kind == .postTerminator }
        let positionalSlots = spec.arguments.count { [.positional, .optionalPositional].contains($0.kind) }
        var terminated = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if terminated {
                // After `--` every argument is a value: the command's arguments after the
                // terminator when it has them, else positional.
                if let terminatorSlot { slots[terminatorSlot].append(argument) } else { positionals.append((index, argument)) }
                continue
            }
            if argument == "--" {
                // `set`'s VALUE collects what no other argument took, and the parser places
                // values around `--` in its own way: the table reads the documented form,
                // `prefs set DOMAIN KEY -- VALUE`, only.
                if takesUnrecognized && (positionals.count != positionalSlots || !unrecognized.isEmpty || index + 1 != arguments.count) {
                    return nil
                }
                // The parser hands `--` to VALUE too; `set` reads it there.
                if takesUnrecognized { unrecognized.append((index, argument)) }
                terminated = true
                continue
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positionals.append((index, argument))
                continue
            }
            var name = Substring(argument)
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = argument[..<equals]
                inline = String(argument[argument.index(after: equals)...])
            }
            // `--`, help, unknown options, `-abc`: the parser's.
            guard let slot = spec.slot(named: name) else {
                guard takesUnrecognized, !isParserEntryPoint(argument) else { return nil }
                unrecognized.append((index, argument))
                continue
            }
            let argumentSpec = spec.arguments[slot]
            switch argumentSpec.kind {
            case .flag:
                guard inline == nil, slots[slot].isEmpty else { return nil }
                slots[slot] = [""]
            case .option, .options:
                let value: String
                if let inline {
                    // The parser reads `--name=` as `--name` followed by the next argument.
                    guard !inline.isEmpty else { return nil }
                    value = inline
                } else {
                    guard index < arguments.count else { return nil }
                    value = arguments[index]
                    // An option that takes any value takes a negative number; the parser
                    // reads other dash arguments after it in its own way.
                    if value.hasPrefix("-") && !(argumentSpec.unconditional && isNegativeNumber(value)) { return nil }
                    index += 1
                }
                // A repeated option keeps every value; a single one the last, as the parser.
                if argumentSpec.kind == .option { slots[slot] = [value] } else { slots[slot].append(value) }
            case .positional, .optionalPositional, .positionals, .unrecognized, .postTerminator:
                return nil
            }
        }
        // Positional values in the order of the command's positional arguments.
        var next = 0
        for (slot, argumentSpec) in spec.arguments.enumerated() {
            switch argumentSpec.kind {
            case .positional:
                guard next < positionals.count else { return nil }
                slots[slot] = [positionals[next].text]
                next += 1
            case .optionalPositional:
                if next < positionals.count {
                    slots[slot] = [positionals[next].text]
                    next += 1
                }
            case .positionals:
                slots[slot] = positionals[next...].map(\.text)
                next = positionals.count
            case .unrecognized:
                // The parser's order when a dash argument comes before the positional values
                // is its own.
                let lastTaken = next > 0 ? positionals[next - 1].index : 0
                if unrecognized.contains(where: { $0.index < lastTaken }) { return nil }
                slots[slot] = (positionals[next...] + unrecognized).sorted { $0.index < $1.index }.map(\.text)
                next = positionals.count
                unrecognized = []
            case .flag, .option, .options, .postTerminator:
                break
            }
        }
        guard next == positionals.count, unrecognized.isEmpty else { return nil }
        return ParsedValues(slots: slots)
    }

    /// Arguments the parser answers itself (help, version, completion scripts and callbacks,
    /// help dumps): the full parser must see them with the whole command tree.
    static func isParserEntryPoint(_ argument: String) -> Bool {
        argument == "-h" || argument == "--help" || argument == "--version" || argument == "-help"
            || argument.hasPrefix("--generate-") || argument.hasPrefix("---") || argument.hasPrefix("--experimental-")
    }

    /// `-5`, `-0.5`, `-1e3`.
    private static func isNegativeNumber(_ argument: String) -> Bool {
        argument.count > 1 && Double(argument) != nil
            && argument.utf8.dropFirst().allSatisfy { (48...57).contains($0) || $0 == 46 || $0 == 101 || $0 == 69 || $0 == 43 || $0 == 45 }
    }
}

#if DEBUG
    extension TableParser {
        /// For tests (`PREFS_COMPARE_PARSERS=1`, debug builds): reads command lines from
        /// standard input, one per line with arguments separated by U+001F, and prints a
        /// `mismatch` line for each one the table read differently from the parser (or read
        /// when the parser refused it), and for each one the executable's start-up `get`
        /// (``QuickGet/plainGet(_:)``, which sees the command line before the table) reads
        /// otherwise than the table; then `start-up get N` (the lines it read) and
        /// `compared N read M`. Standard input and output are the run's (in process too).
        static func compareWithTheParser() throws {
            var compared = 0
            var read = 0
            var plain = 0
            var lines = String(decoding: try readStandardInput(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if lines.last?.isEmpty == true { lines.removeLast() }
            func print(_ text: String) { Output.standard.write(text + "\n") }
            for line in lines {
                let raw = line.isEmpty ? [] : line.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
                let arguments = EmptyOptionValues.split(raw)
                compared += 1
                if let get = QuickGet.plainGet(raw) {
                    plain += 1
                    let table = command(arguments) as? Prefs.GetCommand
                    let same =
                        table.map {
                            $0.global.store == get.store && $0.global.actor == nil && $0.global.override.isEmpty
                                && $0.domain == get.domain && $0.keys == [get.key] && $0.json == get.json && $0.prefix == nil
                                && $0.defaultValue == nil && !$0.showMeta && !$0.showOrigin && $0.path == nil
                        } ?? false
                    if !same { print("mismatch start-up get \(raw): \(get) vs the table's \(table.map { "\($0)" } ?? "nil")") }
                }
                guard let command = command(arguments) else { continue }
                read += 1
                var table = ""
                dump(command, to: &table)
                var full = ""
                do { dump(try Prefs.parseAsRoot(arguments), to: &full) } catch { full = "refused: \(Prefs.message(for: error))" }
                if table != full {
                    print("mismatch \(arguments)\n--- table\n\(table)--- parser\n\(full)")
                }
            }
            print("start-up get \(plain)")
            print("compared \(compared) read \(read)")
        }
    }
#endif
