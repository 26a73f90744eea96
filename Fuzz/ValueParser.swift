// libFuzzer target: the JSON value parser (JSONParser + JSONValue) and `set`'s input typing.
// Built by scripts/fuzz together with the GRDB-free sources it needs.

/// Parses arbitrary bytes as a stored value would be; asserts that what parses survives
/// writing and parsing again unchanged, in compact and indented form.
@_cdecl("LLVMFuzzerTestOneInput")
public func valueParserFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? JSONValue(parsingUTF8: bytes) {
        roundTrip(value)
        _ = LogicValue(value).json
    }
    if let text = String(validating: bytes, as: UTF8.self) {
        // `prefs set` typing: never a crash, and the result is always storable JSON.
        if let value = try? ValueType.auto.value(from: text) {
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
