// prefs-serve [--version | --help]
//
// The HTTP side of `prefs serve`, which execs this helper with its options as one
// ServeConfiguration (PrefsHelperConfiguration) in the environment, so the `prefs` binary never loads
// SwiftNIO and Hummingbird. OFREP evaluation and the web inspector come from PrefsServe's
// ServeCore, the Hummingbird application (event streams, limits, the access log, the poller
// that reads the store again when it changes) from PrefsServeApp's ServeServer; this file
// reads the options and the token, opens the store, binds the socket, logs one line per
// request on stderr and shuts down gracefully on SIGINT and SIGTERM.
import FoundationEssentials
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PrefsCore
import PrefsHelperConfiguration
import PrefsHelpers
import PrefsServe
import PrefsServeApp
import ServiceLifecycle
import Synchronization

// The helpers' one binary: installed, prefs-http-get and prefs-sync are links to it, and the
// name it was run by chooses the program (each also builds on its own for the tests).
switch PathText.lastComponent(CommandLine.arguments.first ?? "") {
case "prefs-http-get": HTTPGetHelper.main(Array(CommandLine.arguments.dropFirst()))
case "prefs-sync": SyncHelper.main(Array(CommandLine.arguments.dropFirst()))
default: break
}

let environment = ProcessInfo.processInfo.environment
let invocation = Invocation(Array(CommandLine.arguments.dropFirst()), environment: environment)
// Read once: nothing this process starts inherits it.
unsetenv(ServeConfiguration.variable)

var token: String?
if let file = invocation.tokenFile {
    // A secret: the caller's (or root's) regular file, private to its owner, small.
    var info = stat()
    guard stat(file, &info) == 0 else { fail("cannot read the token file \(file)", 2) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { fail("the token file \(file) is not a regular file", 2) }
    guard info.st_uid == getuid() || info.st_uid == 0 else {
        fail("the token file \(file) belongs to another user (uid \(info.st_uid))", 2)
    }
    guard info.st_mode & 0o077 == 0 else {
        fail("the token file \(file) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 it", 2)
    }
    guard info.st_size <= 4096 else { fail("the token file \(file) is larger than 4096 bytes", 2) }
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { fail("cannot read the token file \(file)", 2) }
    guard let value = BearerToken.token(fromFileText: text) else { fail("the token file \(file) is empty", 2) }
    token = value
} else if let value = environment["PREFS_SERVE_TOKEN"], !value.isEmpty {
    token = value
}
// Without a token, OFREP is open on loopback, but the inspector's data (every domain, values,
// history) needs a token of this run, printed only to the owner: other local users reach
// 127.0.0.1 too.
let inspectorToken: String? = token == nil ? BearerToken.random() : nil
if !invocation.isLoopback && token == nil {
    fail("listening on \(invocation.host) needs a bearer token: --token-file FILE or PREFS_SERVE_TOKEN (loopback needs none)", 2)
}

let stack: KeyValueStack
let core: ServeCore
/// Wakes the poller when another process may have committed.
let monitor: StoreChangeMonitor
do {
    var options = try KeyValueStack.Options.commandLine(environment: environment)
    options.actor = invocation.actor
    options.overrides = try OverridesText.parse(invocation.overrides)
    stack = try KeyValueStack(path: StoreLocation.resolve(explicit: invocation.store, environment: environment), options: options)
    core = try ServeCore(
        stack: stack,
        options: ServeOptions(
            maximumBodyBytes: invocation.maximumBodyBytes, token: token, inspectorToken: inspectorToken,
            maximumSteps: invocation.maximumSteps))
    monitor = try stack.changeMonitor(pollInterval: invocation.poll, environment: environment)
} catch let error as PrefsError {
    fail(error.message, error.exitCode)
} catch {
    fail("\(error)", 1)
}

/// The application: OFREP, the inspector, event streams, limits (PrefsServeApp).
let toStandardError: @Sendable (String) -> Void = { line in _ = try? FileIO.write(STDERR_FILENO, line.utf8) }
let server = ServeServer(core: core, limits: invocation.limits, accessLog: invocation.accessLog ? toStandardError : nil)

var logger = Logger(label: "prefs-serve")
logger.logLevel = .critical
/// Set once the socket listens: an error before it is a failure to listen.
let listening = Atomic<Bool>(false)
if let path = invocation.socketPath {
    // Binding unlinks a socket left at the path: not one a server still answers on.
    if ListenFailure.socketInUse(path) { fail("serve: cannot listen on unix:\(path): a server answers on that socket already", 4) }
    // Private to its owner (mode 0700: connecting to a unix socket needs write permission).
    umask(0o077)
}
let app = server.application(
    address: invocation.socketPath.map { .unixDomainSocket(path: $0) } ?? .hostname(invocation.host, port: invocation.port),
    onServerRunning: { channel in
        listening.store(true, ordering: .relaxed)
        if let path = invocation.socketPath {
            let inspector = inspectorToken.map { "/#token=\($0)" } ?? "/"
            try? FileIO.write(
                STDOUT_FILENO, "prefs serve: listening on unix:\(path) (OFREP at /ofrep/v1, inspector at \(inspector))\n".utf8)
            return
        }
        let port = channel.localAddress?.port ?? invocation.port
        let host = invocation.host.contains(":") ? "[\(invocation.host)]" : invocation.host
        let inspector = inspectorToken.map { "http://\(host):\(port)/#token=\($0)" } ?? "/"
        try? FileIO.write(
            STDOUT_FILENO, "prefs serve: listening on http://\(host):\(port)/ (OFREP at /ofrep/v1, inspector at \(inspector))\n".utf8)
    },
    logger: logger)
/// Reads the store again when another process may have committed (or a layer file changed).
let poller = server.poller(stack: stack, monitor: monitor, report: toStandardError)

// The poller comes last: shutdown runs in reverse order, so event streams end before the
// server waits for open requests.
let group = ServiceGroup(
    configuration: .init(services: [app, poller], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
do {
    try await group.run()
} catch {
    // Cannot listen (the port is taken, by another program or another user; not an address of
    // this machine; a port below 1024 without the privilege): exit 4, which a service manager
    // restarts (the port may be free later), rather than serve nothing.
    if !listening.load(ordering: .relaxed) {
        fail("serve: cannot listen on \(invocation.listenText): \(ListenFailure.reason(error, socket: invocation.socketPath != nil))", 4)
    }
    fail("serve: \(error)", 1)
}
