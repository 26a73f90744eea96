/// Index ranges for prefix scans.
enum KeyRange {
    /// `[prefix, upper)` covers exactly the keys that start with `prefix` in SQLite's BINARY
    /// collation (UTF-8 byte order, which is also Unicode scalar order). `upper` is the prefix
    /// with its last scalar incremented; nil when no upper bound exists.
    static func prefix(_ prefix: String) -> (String, String?) {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var upper = ""
                upper.unicodeScalars.append(contentsOf: scalars)
                return (prefix, upper)
            }
        }
        return (prefix, nil)
    }
}
