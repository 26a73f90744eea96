// What PrefsCore's public API shows comes from the layers below it: an app imports PrefsCore
// alone.
@_exported import PrefsBase
@_exported import PrefsFlags
@_exported import PrefsInput
@_exported import PrefsJSON
@_exported import PrefsPatterns
