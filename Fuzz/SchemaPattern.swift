// libFuzzer target: schema patterns (PatternSyntax, PatternProgram), which come from schema
// documents other users may write. Built by scripts/fuzz with the SQLite-free modules it imports.

@testable import PrefsBase
@testable import PrefsPatterns

/// The input is a pattern, a NUL byte, and a value. Compiling either fails with an error or
/// gives a program; matching always ends (libFuzzer's 10 s limit per input catches a program
/// that backtracks), within its step budget or with an error, and gives the same answer twice.
@_cdecl("LLVMFuzzerTestOneInput")
public func schemaPatternFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? size
    guard let pattern = String(validating: bytes[..<split], as: UTF8.self),
        let value = String(validating: bytes[min(split + 1, size)...], as: UTF8.self),
        let program = try? PatternProgram(pattern)
    else { return 0 }
    let first = try? program.matches(value)
    guard (try? program.matches(value)) == first else {
        fatalError("\(pattern.debugDescription) matched \(value.debugDescription) differently twice")
    }
    // Anchored at both ends, a pattern never matches more than its unanchored form does.
    if first == false, let anchored = try? PatternProgram("^(?:" + pattern + ")$"), (try? anchored.matches(value)) == true {
        fatalError("^(?:\(pattern))$ matches \(value.debugDescription) but \(pattern.debugDescription) does not")
    }
    return 0
}
