import Foundation
import PrefsCore
import Testing

@Suite("Path helpers (NSString's results)", .timeLimit(.minutes(5)))
struct PathTextTests {
    /// Foundation 6.3.1's NSString traps on a relative path of one component ("a", "a/",
    /// ".") and answers "" for "//": those are spelled out below instead.
    static let paths = [
        "", "/", "/a", "/a/", "//a", "/a/b", "/a/b/", "/a//b//", "a/b", "a/b/", "a/b//", "./a", "../a", "..", "/tmp/prefs.db",
        "rel/dir/prefs.db", "/tmp/./x", "/é/日本.db", "x/../y", "/a/b/c/d.e.f",
    ]

    @Test(arguments: paths)
    func sameAsNSString(path: String) {
        #expect(PathText.lastComponent(path) == (path as NSString).lastPathComponent, "\(path)")
        #expect(PathText.deletingLastComponent(path) == (path as NSString).deletingLastPathComponent, "\(path)")
    }

    @Test func spelledOut() {
        #expect(PathText.lastComponent("/tmp/a.db") == "a.db")
        #expect(PathText.lastComponent("/tmp/dir/") == "dir")
        #expect(PathText.lastComponent("/") == "/")
        #expect(PathText.deletingLastComponent("/tmp/a/") == "/tmp")
        #expect(PathText.deletingLastComponent("/a") == "/")
        #expect(PathText.deletingLastComponent("a.db") == "")
        #expect(PathText.lastComponent("a.db") == "a.db")
        #expect(PathText.lastComponent("a/") == "a")
        #expect(PathText.deletingLastComponent("a//") == "")
        #expect(PathText.lastComponent(".") == ".")
        #expect(PathText.deletingLastComponent(".") == "")
        #expect(PathText.lastComponent("//") == "/")
        #expect(PathText.deletingLastComponent("///") == "/")
        #expect(PathText.appending("/tmp", "a") == "/tmp/a")
        #expect(PathText.appending("/", "a") == "/a")
    }

    @Test func homeDirectoryIsThePasswordEntrys() {
        let home = PathText.homeDirectory()
        #expect(home.hasPrefix("/"))
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            #expect(home == String(cString: directory))
        }
    }
}
