/// Path arithmetic on store paths, without Foundation's `NSString`.
package enum StorePath {
    /// The directory part of `path`, as `NSString.deletingLastPathComponent` gives it:
    /// `/a/b/c` and `/a/b/c/` give `/a/b`, `/a` gives `/`, `a` gives the empty string.
    package static func parentDirectory(of path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var parent = bytes[..<slash]
        while parent.count > 1 && parent.last == UInt8(ascii: "/") { parent.removeLast() }
        return parent.isEmpty ? "/" : String(decoding: parent, as: UTF8.self)
    }
}
