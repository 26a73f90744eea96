extension String {
    /// The string as a quoted SQL identifier: `"name"`, inner quotes doubled.
    package var quotedDatabaseIdentifier: String {
        // Most names have no quote: the generic `replacing(_:with:)` costs a one-shot
        // `get` 50,000 instructions.
        guard utf8.contains(UInt8(ascii: "\"")) else { return "\"" + self + "\"" }
        return "\"" + replacing("\"", with: "\"\"") + "\""
    }
}
