extension String {
    /// The string as a quoted SQL identifier: `"name"`, inner quotes doubled.
    package var quotedDatabaseIdentifier: String {
        "\"" + replacing("\"", with: "\"\"") + "\""
    }
}
