import Foundation
import PrefsCore

/// Buffered writing to standard output, and one-line diagnostics on standard error.
final class Output: @unchecked Sendable {
    /// Standard output. Used only from the main thread.
    static let standard = Output(fd: 1)

    private let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(byte: UInt8) {
        buffer.append(byte)
    }

    func flush() {
        Output.writeAll(fd, buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    /// Writes `prefs: MESSAGE` as one line on standard error.
    static func error(_ message: String) {
        let oneLine = message.replacingOccurrences(of: "\n", with: " ")
        writeAll(2, Array("prefs: \(oneLine)\n".utf8))
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

/// Reads all of standard input.
func readStandardInput() throws -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw PrefsError(.usage, "cannot read standard input: \(String(cString: strerror(errno)))")
        }
        if n == 0 { break }
        result.append(contentsOf: chunk[0..<n])
    }
    return result
}

/// Reads a file, or standard input for `-`.
func readInput(_ path: String) throws -> [UInt8] {
    if path == "-" { return try readStandardInput() }
    guard let data = FileManager.default.contents(atPath: path) else {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            throw PrefsError(.usage, "cannot read \(path): \(isDirectory.boolValue ? "is a directory" : "permission denied")")
        }
        throw PrefsError(.usage, "cannot read \(path): no such file")
    }
    return Array(data)
}

/// Decodes UTF-8 input (exit 6 when invalid).
func decodeUTF8(_ bytes: [UInt8], what: String) throws -> String {
    guard let text = String(validating: bytes, as: UTF8.self) else {
        throw PrefsError(.invalidValue, "\(what) is not valid UTF-8")
    }
    return text
}
