// libFuzzer target: the `prefs batch` line parser (BatchLine.parse), short form and JSON Lines.
// Built by scripts/fuzz with the SQLite-free modules it imports.

@testable import PrefsBase
@testable import PrefsInput
@testable import PrefsJSON

/// Parses arbitrary bytes as one batch line; asserts that a parsed command has a valid key
/// and, written back as a JSON line, parses to the same command.
@_cdecl("LLVMFuzzerTestOneInput")
public func batchLineFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let text = String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) else { return 0 }
    guard let line = try? BatchLine.parse(text) else { return 0 }
    let members: [JSONValue.Member]
    switch line {
    case .set(let domain, let key, let value):
        guard let tree = try? value.value(), CompactJSON(tree) == value else {
            fatalError("a set line's value is not compact JSON text: \(text.debugDescription)")
        }
        members = [.init("op", .string("set")), .init("domain", .string(domain.name)), .init("key", .string(key)), .init("value", tree)]
    case .remove(let domain, let key):
        members = [.init("op", .string("rm")), .init("domain", .string(domain.name)), .init("key", .string(key))]
    case .increment(let domain, let key, let delta):
        members = [
            .init("op", .string("incr")), .init("domain", .string(domain.name)), .init("key", .string(key)),
            .init("by", .number(String(delta))),
        ]
    }
    switch line {
    case .set(let domain, let key, _), .remove(let domain, let key), .increment(let domain, let key, _):
        guard Domain.isValidName(domain.name), (try? KeyName.validate(key)) != nil else {
            fatalError("parsed an invalid domain or key from \(text.debugDescription)")
        }
    }
    let json = JSONValue.object(members).compactText
    guard let again = try? BatchLine.parse(json), again == line else {
        fatalError("\(text.debugDescription) as a JSON line \(json.debugDescription) parses differently")
    }
    return 0
}
