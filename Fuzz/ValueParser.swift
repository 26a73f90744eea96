// libFuzzer target: the JSON value parser (JSONParser + JSONValue) and `set`'s input typing.
// Built by scripts/fuzz with the SQLite-free modules it imports.

@testable import PrefsBase
@testable import PrefsFlags
@testable import PrefsInput
@testable import PrefsJSON

/// Parses arbitrary bytes as a stored value would be; asserts that what parses survives
/// writing and parsing again unchanged, in compact and indented form.
@_cdecl("LLVMFuzzerTestOneInput")
public func valueParserFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? JSONValue(parsingUTF8: bytes) {
        roundTrip(value)
        _ = LogicValue(value).json
    }
    importDocumentAgrees(bytes)
    if let text = String(validating: bytes, as: UTF8.self) {
        // `prefs set` typing: never a crash, and the result is always storable JSON.
        let typed = try? ValueType.auto.value(from: text)
        guard typed.map(CompactJSON.init) == (try? ValueType.auto.compactJSON(from: text)) else {
            fatalError("compact typing differs from typing the value: \(text.debugDescription)")
        }
        if let value = typed {
            roundTrip(value)
            if value.typeName == "string", let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
                first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
            {
                fatalError("text starting with { or [ became a string: \(text.debugDescription)")
            }
        }
        for type in ValueType.allCases where type != .auto {
            if let value = try? type.value(from: text) { try? type.check(value) }
        }
    }
    return 0
}

func roundTrip(_ value: JSONValue) {
    let compact = value.compactText
    guard let again = try? JSONValue(parsing: compact) else {
        fatalError("compact text does not parse: \(compact.debugDescription)")
    }
    guard again == value, again.compactText == compact else {
        fatalError("compact round trip changed the value: \(compact.debugDescription)")
    }
    guard let pretty = try? JSONValue(parsing: value.prettyText), pretty == value else {
        fatalError("pretty round trip changed the value: \(compact.debugDescription)")
    }
    guard value.isEquivalent(to: again) else {
        fatalError("a value is not equivalent to itself: \(compact.debugDescription)")
    }
}

/// `import` reads `{"domain":{"key":value}}` member by member; whenever it answers, it must
/// mean what the full parse of the document means (names, order, last of repeated keys, values).
func importDocumentAgrees(_ bytes: [UInt8]) {
    let streamed = try? bytes.withUnsafeBufferPointer {
        try JSONParser.parseObjectOfObjects($0, wrappingLevels: 2)
    }
    guard let streamed else { return }
    guard let document = try? JSONValue(parsingUTF8: bytes, wrappingLevels: 2), let domains = document.objectMembers else {
        fatalError("the member-by-member parse accepted what the full parse refuses: \(bytes)")
    }
    let full = domains.map { domain in (domain.key, domain.value.objectMembers?.map { ($0.key, $0.value.compactText) }) }
    guard full.count == streamed.count else { fatalError("domain count differs: \(bytes)") }
    for (a, b) in zip(full, streamed) {
        guard let members = a.1, BytewiseString.equal(a.0, b.0), members.count == b.1.count,
            zip(members, b.1).allSatisfy({ BytewiseString.equal($0.0, $1.0) && BytewiseString.equal($0.1, $1.1) })
        else { fatalError("the member-by-member parse differs from the full parse: \(bytes)") }
    }
}
