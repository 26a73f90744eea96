import Glibc

/// Path operations on strings, with the results of Foundation's `NSString` path methods:
/// repeated slashes count as one, a trailing slash is ignored, `/` stays `/`.
///
/// ```swift
/// let name = PathText.lastComponent("/tmp/a.db")          // "a.db"
/// let parent = PathText.deletingLastComponent("/tmp/a/")  // "/tmp"
/// let none = PathText.deletingLastComponent("a.db")       // ""
/// ```
package enum PathText {
    /// `(path as NSString).lastPathComponent`: `/` for `/`, empty for empty.
    package static func lastComponent(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        guard fixed.utf8.count > 1, let slash = fixed.lastIndex(of: "/") else { return fixed }
        return String(fixed[fixed.index(after: slash)...])
    }

    /// `(path as NSString).deletingLastPathComponent`: `/` for `/x` and `/`, empty for a
    /// relative path of one component.
    package static func deletingLastComponent(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        if fixed == "/" || fixed.isEmpty { return fixed }
        guard let slash = fixed.lastIndex(of: "/") else { return "" }
        if slash == fixed.startIndex { return "/" }
        return String(fixed[..<slash])
    }

    /// `component` appended with one slash between (none added after a trailing one).
    package static func appending(_ path: String, _ component: String) -> String {
        path.hasSuffix("/") ? path + component : path + "/" + component
    }

    /// The current user's home directory from the password database (Foundation's
    /// `NSHomeDirectory()` when `HOME` is unset); `/` when there is none.
    package static func homeDirectory() -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = entry.pw_dir else { return "/" }
        let text = String(cString: directory)
        return text.isEmpty ? "/" : text
    }

    /// Runs of slashes made one; a trailing slash dropped unless the path is `/`.
    private static func fixingSlashes(_ path: String) -> String {
        var result = ""
        var previousSlash = false
        for character in path {
            if character == "/" {
                if previousSlash { continue }
                previousSlash = true
            } else {
                previousSlash = false
            }
            result.append(character)
        }
        if result.utf8.count > 1 && result.hasSuffix("/") { result.removeLast() }
        return result
    }
}
