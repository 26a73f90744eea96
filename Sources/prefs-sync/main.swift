// prefs-sync [--store PATH] [--actor NAME] sync [DOMAIN...] [--timeout DURATION] [--watch SECONDS] [--json]
// prefs-sync [--store PATH] sync --compact [--horizon DURATION] [--json]
// prefs-sync --version
//
// The PostgreSQL side of `prefs sync` (SyncHelper in PrefsHelpers). Installed, it is the
// helpers' one binary, `prefs-serve`, under this name; this program is the same code on its
// own (the tests run it).
import PrefsHelpers

SyncHelper.main(Array(CommandLine.arguments.dropFirst()))
