import PrefsCore

// The keys the documentation's examples share (scripts/doc-examples leaves the examples' own
// declarations of these out; keep them as the docs declare them).
extension Keys {
    static let volume = Key<Double>("volume", default: 0.5)
    static let theme = Key<String>("theme", in: "my-app", default: "light")
    static let launches = Key<Int>("launches", default: 0)
    static let sessionToken = Key<String>("session-token", default: "")
}
