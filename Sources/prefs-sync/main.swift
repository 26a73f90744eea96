// prefs-sync [--version | --help]: run by `prefs sync`, which hands it one SyncConfiguration
//
// The PostgreSQL side of `prefs sync` (SyncHelper in PrefsHelpers). Installed, it is the
// helpers' one binary, `prefs-serve`, under this name; this program is the same code on its
// own (the tests run it).
import PrefsHelpers

SyncHelper.main(Array(CommandLine.arguments.dropFirst()))
