/// A word as a shell reads it back: as it is when it holds only characters no shell treats
/// specially, else in single quotes (a `'` as `'\''`). Used in messages that suggest a command.
enum ShellWord {
    /// `text` quoted for sh, bash, zsh and fish alike; control characters are shown as `?`
    /// (a message never carries them to the terminal).
    static func quoted(_ text: String) -> String {
        let visible = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        let plain =
            !visible.isEmpty
            && visible.unicodeScalars.allSatisfy { scalar in
                (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
                    || "_-./:@%+,=".unicodeScalars.contains(scalar)
            }
        if plain { return visible }
        return "'" + visible.replacingLiteral("'", with: "'\\''") + "'"
    }
}
