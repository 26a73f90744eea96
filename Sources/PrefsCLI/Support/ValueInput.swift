import ArgumentParser
import PrefsCore

/// `--type` values.
struct ValueTypeArgument: ExpressibleByArgument {
    var type: ValueType

    init?(argument: String) {
        guard let type = ValueType(rawValue: argument), type != .auto else { return nil }
        self.type = type
    }

    static var allValueStrings: [String] { ValueType.allCases.filter { $0 != .auto }.map(\.rawValue) }

    /// `--type TAB` offers the types.
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// Turns a VALUE argument into a value: `-` reads standard input.
func readValue(_ argument: String, type: ValueType, verbatim: Bool = false) throws -> JSONValue {
    var text = argument
    if argument == "-" {
        var bytes = try readStandardInput()
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        text = try decodeUTF8(bytes, what: "standard input")
    }
    return verbatim ? .string(text) : try type.value(from: text)
}

/// Flushes a one-shot command's writes; on failure drops them, so exit 4 means not written.
func flushOrDiscard(_ stack: KeyValueStack) throws {
    do {
        try stack.flushSynchronously()
    } catch {
        stack.discardPendingWrites()
        throw error
    }
}
