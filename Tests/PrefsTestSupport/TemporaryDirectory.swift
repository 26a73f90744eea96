import Foundation

/// Makes a new directory `PARENT/PREFIX-XXXXXX` (mkdtemp: a fresh name, mode 0700) and returns
/// its path; the caller removes it. `parent` is the system's temporary directory unless given.
public func makeTemporaryDirectory(prefix: String, in parent: String = FileManager.default.temporaryDirectory.path) throws -> String {
    var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: "\(parent)/\(prefix)-XXXXXX"])
    }
    return String(cString: made)
}
