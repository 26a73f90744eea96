import PrefsCore

/// `--name=` with nothing after the `=`: an empty value, read the same way by the command
/// table and by ArgumentParser (which would otherwise take the next argument as the value, so
/// `prefs --store="$UNSET" rm user k1 k2` removed from store `user`, domain `k1`).
enum EmptyOptionValues {
    /// The arguments with every `--name=` before a `--` split into `--name ""`.
    static func split(_ arguments: [String]) -> [String] {
        guard arguments.contains(where: isEmptyAttached) else { return arguments }
        var result: [String] = []
        var terminated = false
        for argument in arguments {
            if argument == "--" { terminated = true }
            if !terminated && isEmptyAttached(argument) {
                result += [String(argument.dropLast()), ""]
            } else {
                result.append(argument)
            }
        }
        return result
    }

    /// Global options whose value may not be empty: a usage error rather than a silent
    /// fallback (an empty `--store` used to mean the default store).
    ///
    /// - Throws: ``PrefsError`` (`usage`) naming the option.
    static func checkGlobalOptions(_ arguments: [String]) throws {
        var position = 0
        while position < arguments.count, arguments[position] != "--" {
            let argument = arguments[position]
            if argument == "--store" || argument == "--actor", position + 1 < arguments.count, arguments[position + 1].isEmpty {
                throw PrefsError(.usage, argument == "--store" ? "--store: the path is empty" : "--actor: the name is empty")
            }
            position += 1
        }
    }

    /// `--name=` exactly: a long option with an empty attached value.
    private static func isEmptyAttached(_ argument: String) -> Bool {
        argument.count > 3 && argument.hasPrefix("--") && argument.hasSuffix("=") && !argument.dropFirst(2).dropLast().contains("=")
    }
}
