import PrefsCLI

#if canImport(Glibc)
    import Glibc
#endif

/// The `prefs` executable: the command line of the process, its exit status the process's.
@main
enum Main {
    static func main() {
        if let refused = PrefsCommandLine.refuseInvalidArguments() { exit(refused) }
        exit(PrefsCommandLine.run(Array(CommandLine.arguments.dropFirst())))
    }
}
