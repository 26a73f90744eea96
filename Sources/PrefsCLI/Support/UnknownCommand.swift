import ArgumentParser
import PrefsCore

/// `prefs gett user x`: names the unknown command and the nearest known one, instead of the
/// parser's "3 unexpected arguments". Also `prefs help nosuch` and `prefs flag nosuch`.
enum UnknownCommand {
    /// The message for an unknown command in `arguments`, or nil when the command is known.
    static func message(_ arguments: [String]) -> String? {
        // The parser's own entry points (completion scripts and their callbacks, help dumps).
        if arguments.contains(where: { $0.hasPrefix("--generate-") || $0.hasPrefix("---") || $0.hasPrefix("--experimental-") }) {
            return nil
        }
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if Completions.valued.contains(argument) {  // an option's value is not a command
                index += 2
                continue
            }
            if !argument.hasPrefix("-") { words.append(argument) }
            index += 1
            if words.count == 2 { break }
        }
        guard let first = words.first else { return nil }
        let root = Prefs.configuration.subcommands
        if first == "help" {
            guard words.count > 1, !root.contains(where: { $0._commandName == words[1] }) else { return nil }
            return unknown(words[1], among: root)
        }
        guard let command = root.first(where: { $0._commandName == first }) else {
            return unknown(first, among: root)
        }
        let children = command.configuration.subcommands
        if !children.isEmpty, words.count > 1 {
            let hasDefault = command.configuration.defaultSubcommand != nil
            if !hasDefault && !children.contains(where: { $0._commandName == words[1] }) {
                return unknown(words[1], among: children, in: first)
            }
        }
        return nil
    }

    /// The verbs people bring from git config, defaults, gsettings, etcdctl, flagd and the shell,
    /// and the prefs command that does that job (`nil` parent: the root's commands). A hint, not
    /// an alias: one name per command keeps scripts, completion and the docs the same.
    static let habits: [String?: [String: String]] = [
        nil: [
            "remove": "rm", "delete": "rm", "del": "rm", "unset": "rm", "erase": "rm",
            "ls": "list", "keys": "list", "read": "get", "show": "get", "write": "set", "put": "set",
            "dump": "export", "load": "import", "history": "log", "increment": "incr", "inc": "incr",
        ],
        "flag": [
            "on": "enable", "off": "disable", "get": "eval", "evaluate": "eval", "is-enabled": "enabled",
            "check": "enabled", "ls": "list", "load": "import", "dump": "export", "validate": "lint",
        ],
    ]

    private static func unknown(_ name: String, among commands: [any ParsableCommand.Type], in parent: String? = nil) -> String {
        let names = commands.map { $0._commandName }
        let full = parent.map { "\($0) \(name)" } ?? name
        var text = "unknown command '\(full)'"
        let prefix = parent.map { "\($0) " } ?? ""
        if let habit = habits[parent]?[name], names.contains(habit) {
            return text + "; prefs calls it '\(prefix)\(habit)' (see 'prefs \(prefix)\(habit) --help')"
        }
        if let nearest = TypoHint.nearest(name, among: names) {
            text += "; did you mean '\(parent.map { "\($0) " } ?? "")\(nearest)'?"
        }
        return text + " (see 'prefs \(parent.map { "\($0) " } ?? "")--help')"
    }

    /// Edit distance over characters, a swap of two neighbours counting as one edit
    /// (optimal string alignment), so `lsit` is next to `list`.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var table = Array(repeating: Array(repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { table[i][0] = i }
        for j in 0...y.count { table[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[x.count][y.count]
    }
}
