import Glibc
import NIOCore

/// Why the server could not listen, as one line's end: the system's reason and what it
/// usually means.
package enum ListenFailure {
    /// The reason for `error`, thrown before the socket listened (`socket`: a unix socket).
    package static func reason(_ error: any Error, socket: Bool) -> String {
        if let failure = error as? IOError {
            let text = String(cString: strerror(failure.errnoCode))
            switch failure.errnoCode {
            case EADDRINUSE: return text + " (another program, perhaps another user's, listens there)"
            case EADDRNOTAVAIL: return text + " (not an address of this machine)"
            case EACCES where !socket: return text + " (a port below 1024 needs root or CAP_NET_BIND_SERVICE)"
            default: return text
            }
        }
        if let failure = error as? SocketAddressError.UnknownHost { return "no such host: \(failure.host)" }
        if error is SocketAddressError { return "not an address: \(error)" }
        if "\(type(of: error))" == "UnixDomainSocketPathWrongType" { return "something other than a socket is at that path" }
        return "\(error)"
    }

    /// Whether a server already answers on the unix socket at `path` (binding would unlink it
    /// and take its place unnoticed).
    package static func socketInUse(_ path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return connected == 0
    }
}
