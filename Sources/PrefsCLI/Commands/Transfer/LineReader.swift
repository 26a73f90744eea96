import ArgumentParser
import Dispatch
import Glibc
import PrefsCore
import Synchronization

/// Reads lines from a file descriptor without holding the whole input.
final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Where reads land, allocated once.
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var atEnd = false

    init(fd: Int32) {
        self.fd = fd
    }

    /// The next line's bytes without its newline (and a trailing CR), or nil at end of input.
    func next() throws -> ArraySlice<UInt8>? {
        while true {
            if let line = nextBuffered() { return line }
            guard try fill() else { return nil }
        }
    }

    /// The next line already read (see ``next()``), or nil when no whole line is buffered:
    /// ``fill()`` reads more, or says that the input has ended.
    func nextBuffered() -> ArraySlice<UInt8>? {
        let from = start
        let found = buffer.withUnsafeBufferPointer { bytes -> Int? in
            guard from < bytes.count, let base = bytes.baseAddress, let hit = memchr(base + from, 0x0A, bytes.count - from) else {
                return nil
            }
            return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
        }
        if let newline = found {
            var end = newline
            if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = buffer[start..<end]
            start = newline + 1
            return line
        }
        guard atEnd, start < buffer.count else { return nil }
        let line = buffer[start...]
        start = buffer.count
        return line
    }

    /// Reads more input (one read); false once the input has ended and every line was taken.
    func fill() throws -> Bool {
        if atEnd { return false }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let descriptor = fd
        let n = chunk.withUnsafeMutableBytes { readRetrying(descriptor, $0) }
        if n < 0 { throw PrefsError(.usage, "cannot read standard input: \(String(cString: strerror(errno)))") }
        if n == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[0..<n]) }
        return true
    }
}
