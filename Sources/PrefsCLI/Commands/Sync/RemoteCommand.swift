import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension Prefs {
    struct RemoteCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remote",
            abstract: "Set, show or unset the PostgreSQL database this store syncs with.",
            discussion: """
                The remote is a libpq connection string, as psql takes it: a URI \
                (postgres://USER@HOST:PORT/DB?sslmode=require, postgresql:///DB?host=/run/postgresql, \
                postgres://H1,H2/DB?target_session_attrs=read-write) or keyword=value pairs (service=NAME). \
                libpq also reads the PG* environment variables and the service file when 'prefs sync' \
                connects. The password comes from PGPASSWORD, ~/.pgpass or the service file; it is never \
                stored, and a URL with a password is refused. Setting a remote connects to nothing.
                """,
            subcommands: [RemoteSetCommand.self, RemoteShowCommand.self, RemoteUnsetCommand.self])
    }
}

extension Duration {
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
