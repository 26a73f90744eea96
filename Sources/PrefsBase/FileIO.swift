import Glibc

/// Reading and writing file descriptors with read(2) and write(2) (what Foundation's
/// `FileHandle` did for prefs): interrupted calls are retried, short writes continued, and a
/// failure is the `errno` it set.
package enum FileIO {
    /// A failed system call: its `errno`.
    package struct Failure: Error, Equatable {
        /// The `errno` value.
        package let code: Int32

        package init(_ code: Int32) { self.code = code }

        /// `strerror`'s text, such as `Is a directory`.
        package var message: String { String(cString: strerror(code)) }
    }

    /// Opens `path` for reading (close-on-exec).
    package static func openForReading(_ path: String) throws(Failure) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno != EINTR { throw Failure(errno) }
        }
    }

    /// Reads until `count` bytes or the end of the input: fewer bytes only at the end.
    package static func read(_ fd: Int32, upTo count: Int) throws(Failure) -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: max(count, 0)) { buffer, filled in
            while filled < buffer.count {
                let n = Glibc.read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }
                filled += n
            }
        }
        if failure != 0 { throw Failure(failure) }
        return bytes
    }

    /// Reads to the end of the input.
    package static func readToEnd(_ fd: Int32) throws(Failure) -> [UInt8] {
        var result: [UInt8] = []
        while true {
            let chunk = try read(fd, upTo: 1 << 16)
            result += chunk
            if chunk.count < 1 << 16 { return result }
        }
    }

    /// Writes all of `bytes`, continuing after short writes. A reader that went away is
    /// `EPIPE` (with SIGPIPE ignored; otherwise the signal ends the process, as it would
    /// have with `FileHandle`).
    package static func write(_ fd: Int32, _ bytes: some Collection<UInt8>) throws(Failure) {
        var failure: Int32 = 0
        Array(bytes).withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                guard let base = raw.baseAddress else { return }
                let n = Glibc.write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        if failure != 0 { throw Failure(failure) }
    }

    /// Closes `fd` (an interrupted close is not retried: on Linux the descriptor is gone).
    package static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}
