/// How a ``DatabaseQueue`` opens its connection.
package struct Configuration {
    /// Open with `SQLITE_OPEN_READONLY` (otherwise read-write, creating the file).
    package var readonly = false
    /// A read-write open creates a missing file (`SQLITE_OPEN_CREATE`); false fails instead.
    package var create = true
    /// How long a statement waits for another connection's lock, in seconds; nil fails at
    /// once with `SQLITE_BUSY`.
    package var busyTimeout: Double?
    /// `PRAGMA foreign_keys = ON` (SQLite's own default is off).
    package var foreignKeysEnabled = true
    /// `SQLITE_DBCONFIG_DEFENSIVE` on and `SQLITE_DBCONFIG_TRUSTED_SCHEMA` off (every
    /// connection prefs opens; tests that tamper with a store turn it off).
    package var defensive = true
    /// Run on the new connection, before the check that it is a database.
    var setups: [(Database) throws -> Void] = []

    package init() {}

    /// Adds a step that runs on every new connection (a `PRAGMA`).
    package mutating func prepareDatabase(_ setup: @escaping (Database) throws -> Void) {
        setups.append(setup)
    }
}
