import ArgumentParser
import PrefsCore

/// The completion scripts `prefs --generate-completion-script SHELL` prints (and
/// `scripts/generate` commits to `completions/`): ArgumentParser's, with its bash and zsh
/// scripts made safe for candidates that come from the store.
///
/// ArgumentParser's bash script hands the callback's candidates to `compgen -W`, which expands
/// every word: a key `$(touch x)` (keys can be written by a refresh server or a sync peer)
/// would run when the user pressed TAB. Here each such call is replaced, by exact text, with a
/// function that reads the candidates line by line, compares them with the typed word as plain
/// text and inserts them quoted. When ArgumentParser's text changes, the replacement fails and
/// the binary refuses to print a script (CompletionTests checks it). zsh (`_describe`) and fish
/// (`complete -a`) quote what they insert themselves; zsh's script only keeps `banghist` on so
/// that its quoting covers `!` (``safeZsh(_:)``). The fish script is printed as generated.
enum CompletionScript {
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    /// The script ArgumentParser printed for `error` (its completion-script request), made safe.
    ///
    /// - Returns: nil when `error` is not a request for a bash or zsh script (printed as it is).
    /// - Throws: ``Mismatch`` when the script is not the text the replacements expect.
    static func text(for error: any Error) throws -> String? {
        guard Prefs.exitCode(for: error) == .success else { return nil }
        let generated = Prefs.fullMessage(for: error)
        if generated.hasPrefix(zshHeader) { return try safeZsh(generated) }
        guard generated.hasPrefix(bashHeader) else { return nil }
        return try safeBash(generated)
    }

    static let zshHeader = "#compdef prefs\n"
    /// ArgumentParser's zsh function turns `banghist` off while it completes, so zsh inserts a
    /// key's `!` unquoted and the line then runs history expansion (`x!!` splices in the last
    /// command). With `banghist` left on, zsh quotes `!` like any special character.
    static let zshOptions = "\n    unsetopt aliases banghist\n"

    static func safeZsh(_ generated: String) throws -> String {
        guard generated.ranges(of: zshOptions).count == 1, generated.ranges(of: "banghist").count == 1 else {
            throw Mismatch(description: "ArgumentParser's zsh script does not turn banghist off once, as this build expects")
        }
        return generated.replacingLiteral(zshOptions, with: "\n    unsetopt aliases\n")
    }

    static let bashHeader = "#!/bin/bash\n"

    /// ArgumentParser's call for a positional's custom candidates, and what replaces it.
    static let unsafeCall = #"__prefs_add_completions -W "$(__prefs_custom_complete ---completion "#
    static let safeCall = #"__prefs_add_custom_completions "$(__prefs_custom_complete ---completion "#
    /// The function the safe one is defined before.
    static let anchor = "\n__prefs_custom_complete() {\n"

    static func safeBash(_ generated: String) throws -> String {
        let calls = generated.ranges(of: unsafeCall).count
        guard calls > 0 else { throw Mismatch(description: "no custom-completion call in ArgumentParser's bash script") }
        guard generated.components(separatedBy: anchor).count == 2 else {
            throw Mismatch(description: "ArgumentParser's bash script does not define __prefs_custom_complete once")
        }
        guard !generated.contains("__prefs_add_custom_completions") else {
            throw Mismatch(description: "ArgumentParser's bash script already defines __prefs_add_custom_completions")
        }
        var script = generated.replacingLiteral(unsafeCall, with: safeCall)
        script = script.replacingLiteral(anchor, with: "\n" + addCustomCompletions + anchor)
        // Every callback goes through the safe function; nothing else is expanded from it.
        let callbacks = script.ranges(of: "__prefs_custom_complete ---completion ").count
        let safe = script.ranges(of: safeCall).count
        guard callbacks == calls, safe == calls, !script.contains(#"-W "$("#), !runsEval(script) else {
            throw Mismatch(description: "ArgumentParser's bash script calls back for candidates in a way this build does not make safe")
        }
        return script
    }

    /// Whether a line of `script` runs `eval` (as a command, not as a word such as `flag eval`).
    static func runsEval(_ script: String) -> Bool {
        script.split(separator: "\n").contains { line in
            let command = line.drop { $0 == " " }
            return command.hasPrefix("eval ") || ["; eval ", "&& eval ", "|| eval ", "$(eval "].contains { line.contains($0) }
        }
    }

    /// Reads the callback's candidates (one per line) as data: compared by prefix as plain
    /// strings, inserted quoted for the quote the typed word opened (`'`, `"` or none).
    /// `compopt +o filenames` keeps readline from quoting them a second time.
    static let addCustomCompletions = #"""
        # Candidates from the callback are data (a key can come from a refresh server or a sync
        # peer): read line by line, compared with the typed word as plain text, and inserted
        # quoted as the word being completed is quoted; never given to compgen -W or eval.
        __prefs_add_custom_completions() {
            compopt +o filenames 2>/dev/null
            local quote=''
            case "${COMP_WORDS[COMP_CWORD]}" in
            \'*) quote="'" ;;
            \"*) quote='"' ;;
            esac
            # The typed word without its escapes (readline leaves an opening quote out of ${cur}).
            local prefix='' character candidate quoted
            local -i i
            if [[ "${quote}" == "'" ]]; then
                prefix="${cur}"
            else
                for ((i = 0; i < ${#cur}; i++)); do
                    character="${cur:i:1}"
                    if [[ "${character}" == '\' && (-z "${quote}" || "${cur:i+1:1}" == [\$\`\"\\]) ]]; then
                        i+=1
                        character="${cur:i:1}"
                    fi
                    prefix+="${character}"
                done
            fi
            while IFS='' read -r candidate; do
                [[ -n "${candidate}" && "${candidate}" == "${prefix}"* ]] || continue
                if [[ "${candidate}" == *[^[:alnum:]_./+%,-]* ]]; then
                    quoted=''
                    for ((i = 0; i < ${#candidate}; i++)); do
                        character="${candidate:i:1}"
                        case "${quote}" in
                        "'") [[ "${character}" == "'" ]] && character="'\\''" ;;
                        '"')
                            # ! would be history expansion even in double quotes: single-quote it.
                            if [[ "${character}" == '!' ]]; then
                                character="\"'!'\""
                            elif [[ "${character}" == [\$\`\"\\] ]]; then
                                character="\\${character}"
                            fi
                            ;;
                        *) [[ "${character}" == [[:alnum:]_./+%,-] ]] || character="\\${character}" ;;
                        esac
                        quoted+="${character}"
                    done
                    candidate="${quoted}"
                fi
                # readline closes an opened quote unless the match already ends with that character.
                [[ -n "${quote}" && "${candidate}" == *"${quote}" ]] && candidate+="${quote}"
                COMPREPLY+=("${candidate}")
            done <<<"${1}"
        }

        """#
}
