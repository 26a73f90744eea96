import PrefsBase

/// JSONPath-style names for error messages: `.name`, or `["odd name"]` when the name is not
/// plain ASCII letters, digits, `_` and `-`.
///
/// ```swift
/// let path = "$" + JSONPath.member("user") + JSONPath.member("ui theme")  // $.user["ui theme"]
/// ```
package enum JSONPath {
    /// The path component for an object member.
    package static func member(_ name: String) -> String {
        let simple =
            !name.isEmpty
            && name.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D
            }
        if simple { return "." + name }
        let shown = name.utf8.count > 60 ? String(name.prefix(60)) + "…" : name
        return "[" + JSONValue.string(shown).compactText + "]"
    }
}
