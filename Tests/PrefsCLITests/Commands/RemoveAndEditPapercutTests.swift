import Foundation
import Testing

/// `rm --domain` of an empty built-in domain and `edit` whose editor deleted the file (issue 28).
@Suite("rm and edit papercuts", .timeLimit(.minutes(5)))
struct RemoveAndEditPapercutTests {
    @Test func emptyingAnEmptyBuiltInDomainSucceeds() throws {
        let box = try Sandbox(inProcess: true)
        let memory = try box.runOK(["rm", "--domain", "memory", "--force"])
        #expect(memory.status == 0 && memory.stdout.isEmpty && memory.stderr.isEmpty, "\(memory)")
        let user = try box.runOK(["rm", "--domain", "user", "--force"])
        #expect(user.status == 0 && user.stderr.isEmpty, "\(user)")
        let missing = try box.runFailing(["rm", "--domain", "nosuch"], status: 1)
        #expect(missing.status == 1 && missing.stderr == "prefs: domain nosuch does not exist\n", "\(missing)")
        try box.runOK(["set", "memory", "token", "t"])
        try box.runOK(["rm", "--domain", "memory", "--force"])
        try box.runFailing(["get", "memory", "token"], status: 1)
    }

    @Test func anEditorThatDeletesTheFileChangesNothingAndSaysSo() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "1"])
        let before = try box.storeSnapshot()
        let result = try box.runFailing(["edit", "user", "k"], status: 1, environment: ["EDITOR": "rm", "VISUAL": "rm"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasPrefix("prefs: the editor rm removed ") && result.stderr.hasSuffix("; nothing was changed\n"), "\(result)")
        #expect(!result.stderr.contains("kept"), "\(result)")
        #expect(try box.storeSnapshot() == before)
    }
}
