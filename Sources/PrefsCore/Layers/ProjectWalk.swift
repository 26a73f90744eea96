import Glibc

/// The walk of the project layer up the directory tree (``Layers/walkUp(from:_:)``), on one
/// byte buffer: the directory's path, then the name looked for. Each look is one `stat` of the
/// buffer; no string is made until a caller asks for a path.
struct ProjectWalk {
    /// The directory's path (empty for the root), then room for `/NAME` and a NUL.
    private var buffer: [UInt8]
    /// The length of the directory's path in ``buffer``.
    private var end: Int

    /// At `start`, an absolute path; nil for a relative one.
    init?(from start: String) {
        guard start.hasPrefix("/") else { return nil }
        buffer = Array(start.utf8)
        end = start == "/" ? 0 : buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 16))
    }

    /// The directory.
    var directory: String { end == 0 ? "/" : String(decoding: buffer[..<end], as: UTF8.self) }

    /// The path of `name` in the directory.
    func path(of name: String) -> String {
        String(decoding: buffer[..<end], as: UTF8.self) + "/" + name
    }

    /// Whether `name` exists in the directory (`stat` follows a symbolic link).
    mutating func has(_ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        let needed = end + count + 2
        if buffer.count < needed { buffer.append(contentsOf: repeatElement(0, count: needed - buffer.count)) }
        let end = end
        return buffer.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return false }
            base[end] = UInt8(ascii: "/")
            (base + end + 1).update(from: name.utf8Start, count: count)
            base[end + 1 + count] = 0
            var status = stat()
            return base.withMemoryRebound(to: CChar.self, capacity: needed) { stat($0, &status) == 0 }
        }
    }

    /// Moves to the parent directory; false at the root.
    mutating func up() -> Bool {
        guard end > 0 else { return false }
        repeat { end -= 1 } while end > 0 && buffer[end] != UInt8(ascii: "/")
        return true
    }
}
