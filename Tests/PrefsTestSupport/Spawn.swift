import Foundation

/// Starts `command` (its first element found on PATH unless it holds a slash) with posix_spawn,
/// standard input from /dev/null, standard output and error to the file `output`, and no other
/// descriptor of this process: tests running in parallel have pipes open, and a server or
/// watchdog that inherited one would keep it open (its reader would never see the end). No
/// Foundation `Process`, which was seen never to reap a client whose server outlives it.
public func spawnDetached(_ command: [String], output: String) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {  // glibc 2.34+, not in Swift's Glibc module
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }
    // No signal blocked and the usual ones at their defaults: a test thread blocks most signals,
    // and a tmux server that inherited that mask never exits on kill-server (its shells ignore ^C).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU] {
        sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
    argv.append(nil)
    defer { for pointer in argv { free(pointer) } }
    var pid = pid_t()
    let code = posix_spawnp(&pid, command[0], &actions, &attributes, argv, environ)
    guard code == 0 else { throw SpawnError(description: "cannot run \(command[0]): \(String(cString: strerror(code)))") }
    return pid
}

/// Waits for `pid` to end and returns its raw wait status (0 for exit 0).
public func waitForExit(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

/// Why ``spawnDetached(_:output:)`` could not start a program.
public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
}
