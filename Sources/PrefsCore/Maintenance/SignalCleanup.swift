import CPrefsSQLite

/// Removes the temporary file a long step is writing (a backup's hidden full copy, a
/// restore's new store, and the `-journal`, `-wal` and `-shm` SQLite keeps beside them) when
/// SIGINT, SIGTERM or SIGHUP ends the process, so an interrupted `backup` or `restore` leaves
/// nothing behind. (SIGKILL cannot be caught: `prefs doctor` names what it leaves, and
/// `doctor --fix` removes it.) The library only names the file; a program opts in with
/// ``installHandlers()`` (the library never installs signal handlers of its own).
///
/// ```swift
/// SignalCleanup.installHandlers()
/// try stack.maintenance.backup(to: "/var/backups/prefs.db")
/// ```
public enum SignalCleanup {
    /// Installs the handlers: each removes the file named now, then ends the process by the
    /// signal as its default action would.
    public static func installHandlers() {
        prefs_cleanup_install()
    }

    /// Names the temporary file the handlers remove (nil: none).
    static func register(_ path: String?) {
        if let path {
            _ = prefs_cleanup_register(path)
        } else {
            _ = prefs_cleanup_register(nil)
        }
    }
}
