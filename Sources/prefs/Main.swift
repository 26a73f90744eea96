import PrefsCLI

#if canImport(Glibc)
    import Glibc
#endif

/// The `prefs` executable: the command line of the process, its exit status the process's.
@main
enum Main {
    static func main() {
        PrefsCommandLine.reserveStandardDescriptors()
        if let refused = PrefsCommandLine.refuseInvalidArguments() { exit(refused) }
        PrefsCommandLine.configureOneShotProcess()
        let arguments = Array(CommandLine.arguments.dropFirst())
        // A plain `get` is answered before the command table is read (docs/performance.md).
        if let status = PrefsCommandLine.answerPlainGet(arguments) { exit(status) }
        exit(PrefsCommandLine.run(arguments))
    }
}
