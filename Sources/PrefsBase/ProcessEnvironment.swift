import Glibc
import Synchronization

/// The process's environment variables read from `environ` (what Foundation's
/// `ProcessInfo.processInfo.environment` gives, without building it through Foundation): `NAME=value` entries, the first of a
/// repeated name kept, entries without `=` skipped.
@usableFromInline package enum ProcessEnvironment {
    /// The variables of a command line run in process (the CLI's tests run several at once,
    /// each with its own), answered by ``current()`` and ``value(_:)`` instead of the
    /// process's.
    @TaskLocal package static var override: [String: String]?

    /// Whether an in-process run ever started. The `prefs` binary never sets it, so a read
    /// there costs one relaxed load, not a task-local lookup.
    package static let overridden = Atomic<Bool>(false)

    /// ``override`` when an in-process run is under way on this task, else nil.
    @inline(__always) package static var inProcess: [String: String]? {
        overridden.load(ordering: .relaxed) ? override : nil
    }

    /// The variables as they are now (read on every call, so `setenv` is seen).
    @usableFromInline package static func current() -> [String: String] {
        if let variables = inProcess { return variables }
        var result: [String: String] = [:]
        // `environ` is null after clearenv(3).
        guard var entry = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>(bitPattern: UInt(bitPattern: environ)) else {
            return result
        }
        while let pointer = entry.pointee {
            // The `=` found in the bytes (strchr): String.firstIndex walks Characters, which
            // made this a sixth of a one-shot `set`.
            if let equals = strchr(pointer, 0x3D) {
                let name = String(
                    decoding: UnsafeRawBufferPointer(start: pointer, count: equals - pointer).bindMemory(to: UInt8.self), as: UTF8.self)
                if result[name] == nil { result[name] = String(cString: equals + 1) }
            }
            entry += 1
        }
        return result
    }

    /// One variable (`getenv`); nil when unset.
    package static func value(_ name: String) -> String? {
        if let variables = inProcess { return variables[name] }
        return getenv(name).map { String(cString: $0) }
    }
}
