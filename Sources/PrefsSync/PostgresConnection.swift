import CPrefsPQ
import FoundationEssentials
import Glibc
import PrefsCore

/// One libpq connection, driven without blocking past a deadline: connecting
/// (`PQconnectStartParams`/`PQconnectPoll`) and every query (`PQsendQueryParams`, then
/// `poll()` on the socket) give up at ``deadline`` with a timeout. Queries are always
/// parameterized; results are read as text.
///
/// libpq does all of the connecting: URIs and `keyword=value` strings, the `PG*` environment
/// variables, the service file, the password file, unix sockets, several hosts and `sslmode`.
final class PostgresConnection {
    private let connection: OpaquePointer
    /// When every wait gives up (ContinuousClock).
    var deadline: ContinuousClock.Instant
    private var closed = false

    private init(connection: OpaquePointer, deadline: ContinuousClock.Instant) {
        self.connection = connection
        self.deadline = deadline
    }

    deinit {
        if !closed { PQfinish(connection) }
    }

    /// Connects with libpq, reading `conninfo` (a URI or `keyword=value` string) as psql does.
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable` with libpq's message (first lines).
    static func connect(_ conninfo: String, deadline: ContinuousClock.Instant) throws -> PostgresConnection {
        let keywords = ["dbname", "fallback_application_name"]
        let values = [conninfo, "prefs-sync"]
        let started: OpaquePointer? = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                PQconnectStartParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let started else { throw PrefsError(.unreachable, "libpq could not allocate a connection") }
        // The server's notices and warnings are dropped: libpq's default processor prints them
        // raw on stderr, and any role that owns prefs_ops can make a trigger RAISE one with
        // terminal escape sequences or forged lines. Errors reach the user escaped (failure()).
        PQsetNoticeProcessor(started, { _, _ in }, nil)
        let connection = PostgresConnection(connection: started, deadline: deadline)
        if PQstatus(started) == CONNECTION_BAD { throw connection.failure() }
        var state = PGRES_POLLING_WRITING
        while true {
            switch state {
            case PGRES_POLLING_OK:
                PQsetnonblocking(started, 1)
                return connection
            case PGRES_POLLING_FAILED:
                throw connection.failure()
            case PGRES_POLLING_READING:
                try connection.wait(read: true)
            default:
                try connection.wait(read: false)
            }
            state = PQconnectPoll(started)
        }
    }

    /// Closes the connection (a transaction in progress is rolled back by the server).
    func close() {
        guard !closed else { return }
        closed = true
        PQfinish(connection)
    }

    /// The socket, for waiting on notifications.
    var socket: Int32 { PQsocket(connection) }

    /// Whether the connection is still good.
    var isGood: Bool { !closed && PQstatus(connection) == CONNECTION_OK }

    /// Runs one statement with text parameters and returns its result (the last one).
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable` with the server's message and SQLSTATE,
    ///   or a timeout at ``deadline``.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        guard !closed else { throw PrefsError(.unreachable, "the connection was closed") }
        let sent = withOptionalCStrings(parameters) { pointers in
            PQsendQueryParams(connection, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
        }
        guard sent == 1 else { throw failure() }
        // Flush what is queued: with a non-blocking connection, PQflush returns 1 while data remains.
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { break }
            if flushed < 0 { throw failure() }
            try wait(read: true, write: true)
            guard PQconsumeInput(connection) == 1 else { throw failure() }
        }
        var last: OpaquePointer?
        var error: PrefsError?
        while true {
            while PQisBusy(connection) == 1 {
                try wait(read: true)
                guard PQconsumeInput(connection) == 1 else {
                    if let last { PQclear(last) }
                    throw failure()
                }
            }
            guard let result = PQgetResult(connection) else { break }
            let status = PQresultStatus(result)
            if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY, error == nil {
                error = Self.serverError(result)
            }
            if let last { PQclear(last) }
            last = result
        }
        if let error {
            if let last { PQclear(last) }
            throw error
        }
        guard let last else { throw failure() }
        return PostgresResult(last)
    }

    /// Reads what the server sent and returns the notifications that arrived (their payloads).
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable` when the connection broke.
    func notifications() throws -> [String] {
        guard PQconsumeInput(connection) == 1 else { throw failure() }
        var payloads: [String] = []
        while let notify = PQnotifies(connection) {
            payloads.append(notify.pointee.extra.map { String(cString: $0) } ?? "")
            PQfreemem(notify)
        }
        if PQstatus(connection) != CONNECTION_OK { throw failure() }
        return payloads
    }

    /// Waits until the socket is readable (or writable) or the deadline passes.
    private func wait(read: Bool, write: Bool = false) throws {
        let fd = PQsocket(connection)
        guard fd >= 0 else { throw failure() }
        var descriptor = pollfd(fd: fd, events: Int16(read ? POLLIN : 0) | Int16(write || !read ? POLLOUT : 0), revents: 0)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { throw Self.timedOut }
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
            let ready = poll(&descriptor, 1, Int32(min(milliseconds, 60_000)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw PrefsError(.unreachable, "poll failed: \(String(cString: strerror(errno)))") }
        }
    }

    static let timedOut = PrefsError(.unreachable, "timed out")

    /// libpq's message for the connection, on one line, without the password (libpq never
    /// puts it there).
    func failure() -> PrefsError {
        let message = PQerrorMessage(connection).map { String(cString: $0) } ?? ""
        return PrefsError(.unreachable, Self.oneLine(message.isEmpty ? "connection failed" : message))
    }

    static func serverError(_ result: OpaquePointer) -> PrefsError {
        let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = primary ?? PQresultErrorMessage(result).map { String(cString: $0) } ?? "query failed"
        return PrefsError(.unreachable, oneLine(message) + (state.map { " (SQLSTATE \(oneLine($0)))" } ?? ""))
    }

    /// libpq's multi-line messages joined: "connection to server at … failed: Connection refused; Is the server running …".
    /// The server's text is a peer's (a trigger's `RAISE EXCEPTION` on `prefs_ops`): its
    /// control characters are escaped as `sync --status` shows stored text
    /// (``TerminalText/escapingControls(_:)``), so it can neither forge lines nor drive the terminal.
    static func oneLine(_ text: String) -> String {
        TerminalText.escapingControls(
            text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
                .joined(separator: "; "))
    }
}

/// A query's result (freed with the object).
final class PostgresResult {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }

    deinit { PQclear(result) }

    /// The number of rows.
    var count: Int { Int(PQntuples(result)) }

    /// The number of rows a command changed (`DELETE`, `INSERT`).
    var changed: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// A column as text; nil for NULL or a column that is not there.
    func text(_ row: Int, _ column: Int) -> String? {
        guard row < count, column < Int(PQnfields(result)), PQgetisnull(result, Int32(row), Int32(column)) == 0 else { return nil }
        guard let value = PQgetvalue(result, Int32(row), Int32(column)) else { return nil }
        return String(cString: value)
    }

    /// A bigint column; nil for NULL.
    ///
    /// - Throws: ``PrefsError`` of kind `unreachable` when the server sent something else.
    func int(_ row: Int, _ column: Int) throws -> Int64? {
        guard let text = text(row, column) else { return nil }
        guard let value = Int64(text) else { throw PrefsError(.unreachable, "the server sent a malformed number") }
        return value
    }
}

private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { buffer in body(buffer.baseAddress) }
}

private func withOptionalCStrings<T>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
    let copies = strings.map { $0.map { strdup($0) } ?? nil }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
    return pointers.withUnsafeBufferPointer { buffer in body(buffer.baseAddress) }
}
