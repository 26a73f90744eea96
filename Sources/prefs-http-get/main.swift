// prefs-http-get TIMEOUT_SECONDS   (the URL, then request headers, on standard input)
// prefs-http-get --version
//
// The HTTP client `prefs refresh` runs (HTTPGetHelper in PrefsHelpers). Installed, it is the
// helpers' one binary, `prefs-serve`, under this name; this program is the same code on its
// own (the tests run it).
import PrefsHelpers

HTTPGetHelper.main(Array(CommandLine.arguments.dropFirst()))
