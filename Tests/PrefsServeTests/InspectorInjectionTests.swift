import Foundation
import PrefsCore
import PrefsServe
import PrefsTestSupport
import Testing

/// The inspector's JSON carries text other parties wrote as JSON strings, exactly (issue 28).
@Suite("inspector: stored text is data", .timeLimit(.minutes(5)))
struct InspectorInjectionTests {
    static let hostile = [
        "</script><script>alert(1)</script>", "$(touch /tmp/x)", "a\"b", #"back\slash"#, "line\u{2028}sep", "<img src=x onerror=1>",
        "'; DROP TABLE kv_user; --",
    ]

    @Test func keysAndValuesComeBackExactlyAsJSONStrings() throws {
        let fixture = try ServeCoreTests.Fixture()
        for (index, text) in Self.hostile.enumerated() {
            try fixture.stack.set(.string(Self.hostile[(index + 1) % Self.hostile.count]), in: .dynamic, forKey: text)
        }
        try fixture.stack.flushSynchronously()
        let core = try ServeCore(stack: fixture.stack)
        let listed = core.handle(ServeRequest(method: "GET", target: "/api/keys?q="))
        #expect(listed.status == 200, "\(listed.text)")
        let object = try JSONSerialization.jsonObject(with: Data(listed.text.utf8)) as? [String: Any]
        let keys = (object?["keys"] as? [[String: Any]] ?? []).filter { $0["domain"] as? String == "dynamic" }.compactMap {
            $0["key"] as? String
        }
        #expect(Set(keys) == Set(Self.hostile), "\(listed.text)")
        for (index, text) in Self.hostile.enumerated() {
            let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let answer = core.handle(ServeRequest(method: "GET", target: "/api/key?domain=dynamic&key=" + query))
            #expect(answer.status == 200, "\(text): \(answer.text)")
            let value = (try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any])?["value"] as? String
            #expect(value == Self.hostile[(index + 1) % Self.hostile.count], "\(text): \(answer.text)")
        }
    }
}
