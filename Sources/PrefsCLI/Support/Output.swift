import Glibc
import PrefsCore

/// Buffered writing to standard output, and one-line diagnostics on standard error.
final class Output: @unchecked Sendable {
    /// Standard output: the process's (used only from the main thread), or that of the
    /// in-process run under way on this task (``CommandContext``).
    static var standard: Output { CommandContext.active?.output ?? process }

    /// The process's standard output.
    private static let process = Output(fd: 1)

    private let fd: Int32
    private let capture: CommandContext.Capture?
    private var buffer: [UInt8] = []
    /// The `errno` of the first write to the descriptor that failed (a full disk, a closed
    /// descriptor, a pipe whose reader left while SIGPIPE is ignored); later output is dropped.
    /// The command line turns it into exit 4: output that did not arrive is not a success.
    private(set) var failure: Int32?

    init(fd: Int32) {
        self.fd = fd
        self.capture = nil
        buffer.reserveCapacity(1 << 16)
    }

    /// Output kept in memory (``captured``) instead of written to a descriptor.
    init(capture: CommandContext.Capture) {
        self.fd = -1
        self.capture = capture
    }

    /// What was flushed so far, for output kept in memory.
    var captured: [UInt8] { capture?.contents ?? [] }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Lets `fill` append to the buffer itself: a line made in place, with no array of its own.
    func write(_ fill: (inout [UInt8]) throws -> Void) rethrows {
        try fill(&buffer)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(byte: UInt8) {
        buffer.append(byte)
    }

    func flush() {
        if let capture {
            capture.append(buffer)
        } else if failure == nil, !buffer.isEmpty {
            failure = Output.writeAll(fd, buffer)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, and throws exit 4 when any of the output could not be written.
    func finish() throws(PrefsError) {
        flush()
        try checkWritten()
    }

    /// Throws exit 4 when a flush so far failed: a long output stops there.
    func checkWritten() throws(PrefsError) {
        if let failure {
            throw PrefsError(.cannotWrite, "cannot write standard output: \(String(cString: strerror(failure)))")
        }
    }

    /// Writes `bytes` at once, past the buffer, from any thread (`batch`'s progress lines): to
    /// the descriptor, or to the memory of an in-process run. Returns nil, or the `errno` of
    /// the write that failed.
    func writeImmediately(_ bytes: [UInt8]) -> Int32? {
        guard let capture else { return Output.writeAll(fd, bytes) }
        capture.append(bytes)
        return nil
    }

    /// Writes every byte; returns nil, or the `errno` of the write that failed.
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
    }

    /// Writes `prefs: MESSAGE` as one line on standard error: the process's, or that of the
    /// in-process run `context` (the one under way on this task unless another thread reports
    /// for it).
    static func error(_ message: String, context: CommandContext? = CommandContext.active) {
        let oneLine = message.replacingLiteral("\n", with: " ")
        let line = Array("prefs: \(oneLine)\n".utf8)
        if let context { context.errors.append(line) } else { writeAll(2, line) }
    }

    /// Writes a value as `get` prints it: strings raw, everything else compact JSON.
    func writeValue(_ value: JSONValue, json: Bool) {
        if !json, case .string(let s) = value {
            write(s)
        } else {
            write(value.compactText)
        }
        write(byte: UInt8(ascii: "\n"))
    }
}

/// The descriptor standard input is read from: 0, or the in-process run's.
var standardInputDescriptor: Int32 { CommandContext.active?.standardInput ?? 0 }

/// Reads all of standard input.
func readStandardInput() throws -> [UInt8] {
    try readAll(standardInputDescriptor, expected: 0) {
        PrefsError(.usage, "cannot read standard input: \(String(cString: strerror($0)))")
    }
}

/// Reads a file, or standard input for `-`.
func readInput(_ path: String) throws -> [UInt8] {
    if path == "-" { return try readStandardInput() }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    func failure(_ code: Int32) -> PrefsError {
        switch code {
        case ENOENT, ENOTDIR: PrefsError(.usage, "cannot read \(path): no such file")
        case EISDIR: PrefsError(.usage, "cannot read \(path): is a directory")
        case EACCES, EPERM: PrefsError(.usage, "cannot read \(path): permission denied")
        default: PrefsError(.usage, "cannot read \(path): \(String(cString: strerror(code)))")
        }
    }
    guard fd >= 0 else { throw failure(errno) }
    defer { close(fd) }
    var status = stat()
    let size = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : 0
    return try readAll(fd, expected: size) { failure($0) }
}

/// Reads a descriptor to its end. A regular file's size (`expected`) sizes the buffer, so
/// its bytes land in place in one read; anything longer is read in chunks.
func readAll(_ fd: Int32, expected: Int, failure: (Int32) -> PrefsError) throws -> [UInt8] {
    var atEnd = false
    var result = try [UInt8](unsafeUninitializedCapacity: max(expected + 1, 1 << 16)) { buffer, count in
        while count < buffer.count {
            let n = readRetrying(fd, UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...])))
            if n < 0 { throw failure(errno) }
            if n == 0 {
                atEnd = true
                return
            }
            count += n
        }
    }
    var chunk = [UInt8](repeating: 0, count: atEnd ? 0 : 1 << 16)
    while !atEnd {
        let n = chunk.withUnsafeMutableBytes { readRetrying(fd, $0) }
        if n < 0 { throw failure(errno) }
        if n == 0 { atEnd = true } else { result.append(contentsOf: chunk[0..<n]) }
    }
    return result
}

/// One read(2), retried when a signal interrupts it: the byte count (0 at end of input), or
/// -1 with `errno` set.
func readRetrying(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    while true {
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n >= 0 || errno != EINTR { return n }
    }
}

/// Decodes UTF-8 input (exit 6 when invalid).
func decodeUTF8(_ bytes: [UInt8], what: String) throws -> String {
    guard let text = String(validating: bytes, as: UTF8.self) else {
        throw PrefsError(.invalidValue, "\(what) is not valid UTF-8")
    }
    return text
}
