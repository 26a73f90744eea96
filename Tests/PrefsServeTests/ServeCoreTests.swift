import Foundation
import PrefsCore
import PrefsServe
import PrefsTestSupport
import Testing

/// The serving core without sockets: OFREP shapes and codes, ETags, limits, tokens, Host.
@Suite("prefs serve core", .timeLimit(.minutes(5)))
struct ServeCoreTests {
    static let document = """
        {"metadata": {"flagSetId": "shop"},
         "flags": {
          "new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
            "targeting": {"if": [{"ends_with": [{"var": "email"}, "@example.com"]}, "on", "off"]}, "metadata": {"owner": "payments"}},
          "banner": {"state": "ENABLED", "variants": {"a": "Hello", "b": "Hi"}, "defaultVariant": "a",
            "targeting": {"fractional": [["a", 50], ["b", 50]]}},
          "limits": {"state": "DISABLED", "variants": {"small": {"n": 1}}, "defaultVariant": "small"},
          "nodefault": {"state": "ENABLED", "variants": {"x": 1}, "defaultVariant": null},
          "broken": {"state": "ENABLED", "variants": {"x": 1.5}, "defaultVariant": "x", "targeting": {"cat": ["z"]}}
        }}
        """

    final class Fixture {
        let directory: String
        let stack: KeyValueStack

        init() throws {
            directory = try makeTemporaryDirectory(prefix: "prefs-serve")
            stack = try KeyValueStack(
                path: directory + "/prefs.db", options: .init(memoryTier: .inProcess, environment: ["XDG_RUNTIME_DIR": directory]))
            try stack.flags.importDocument(try JSONValue(parsing: ServeCoreTests.document))
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    func post(_ core: ServeCore, _ path: String, _ body: String, headers: [String: String] = [:]) -> ServeResponse {
        core.handle(ServeRequest(method: "POST", path: path, headers: headers, body: Array(body.utf8)))
    }

    @Test func singleFlagAnswersAsFlagEval() throws {
        let fixture = try Fixture()
        let core = try ServeCore(stack: fixture.stack)
        let staff = post(core, "/ofrep/v1/evaluate/flags/new-checkout", #"{"context":{"email":"a@example.com"}}"#)
        #expect(staff.status == 200)
        #expect(
            staff.text
                == #"{"key":"new-checkout","value":true,"reason":"TARGETING_MATCH","variant":"on","metadata":{"flagSetId":"shop","owner":"payments"}}"#
        )
        let library = try fixture.stack.flags.evaluate(
            "new-checkout", type: .boolean, default: .bool(false), context: JSONValue(parsing: #"{"email":"a@example.com"}"#))
        #expect(library.value == .bool(true) && library.variant == "on" && library.reason == "TARGETING_MATCH")
        for i in 0..<20 {
            let response = post(core, "/ofrep/v1/evaluate/flags/banner", #"{"context":{"targetingKey":"user-\#(i)"}}"#)
            let expected = try fixture.stack.flags.evaluate(
                "banner", type: .string, default: .string("?"), context: .object([.init("targetingKey", .string("user-\(i)"))]))
            #expect(
                response.text.contains(
                    #""value":\#(expected.value.compactText),"reason":"TARGETING_MATCH","variant":"\#(expected.variant ?? "")""#))
        }
        let disabled = post(core, "/ofrep/v1/evaluate/flags/limits", "")
        #expect(
            disabled.status == 200
                && disabled.text == #"{"key":"limits","reason":"DISABLED","variant":"","metadata":{"flagSetId":"shop"}}"#)
        let noDefault = post(core, "/ofrep/v1/evaluate/flags/nodefault", "{}")
        #expect(noDefault.text == #"{"key":"nodefault","reason":"DEFAULT","variant":"","metadata":{"flagSetId":"shop"}}"#)
    }

    @Test func failuresHaveTheirCodes() throws {
        let fixture = try Fixture()
        let core = try ServeCore(stack: fixture.stack, options: ServeOptions(maximumBodyBytes: 1000))
        let missing = post(core, "/ofrep/v1/evaluate/flags/nope", "{}")
        #expect(
            missing.status == 404
                && missing.text == #"{"key":"nope","errorCode":"FLAG_NOT_FOUND","errorDetails":"flag \"nope\" not found"}"#)
        let general = post(core, "/ofrep/v1/evaluate/flags/broken", "{}")
        #expect(
            general.status == 400
                && general.text.hasPrefix(#"{"key":"broken","errorCode":"GENERAL","errorDetails":"targeting returned \"z\""#),
            "\(general.text)")
        let malformed = post(core, "/ofrep/v1/evaluate/flags/banner", "{nope")
        #expect(malformed.status == 400 && malformed.text.hasPrefix(#"{"key":"banner","errorCode":"PARSE_ERROR""#))
        let notObject = post(core, "/ofrep/v1/evaluate/flags/banner", #"{"context":[1]}"#)
        #expect(notObject.status == 400 && notObject.text.hasPrefix(#"{"key":"banner","errorCode":"INVALID_CONTEXT""#))
        let deep = String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40)
        let tooDeep = post(core, "/ofrep/v1/evaluate/flags/banner", #"{"context":\#(deep)}"#)
        #expect(tooDeep.status == 400 && tooDeep.text.contains("deeper than 32 levels"))
        let deeper = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let parserBound = post(core, "/ofrep/v1/evaluate/flags/banner", #"{"context":{"a":\#(deeper)}}"#)
        #expect(parserBound.status == 413 || parserBound.status == 400)
        let large = post(core, "/ofrep/v1/evaluate/flags/banner", #"{"context":{"a":"\#(String(repeating: "x", count: 2000))"}}"#)
        #expect(large.status == 413 && large.text == #"{"errorDetails":"the body is larger than 1000 bytes"}"#)
        let get = core.handle(ServeRequest(method: "GET", path: "/ofrep/v1/evaluate/flags/banner"))
        #expect(get.status == 405 && get.header("Allow") == "POST")
        #expect(core.handle(ServeRequest(method: "GET", path: "/nothing")).status == 404)
        let badEscape = post(core, "/ofrep/v1/evaluate/flags/%ZZ", "{}")
        #expect(badEscape.status == 400)
        let encoded = post(core, "/ofrep/v1/evaluate/flags/new%2Dcheckout", "{}")
        #expect(encoded.status == 200 && encoded.text.hasPrefix(#"{"key":"new-checkout""#))
    }

    @Test func bulkCarriesAnETagThatChangesWithSwitch() throws {
        let fixture = try Fixture()
        let core = try ServeCore(stack: fixture.stack)
        let first = post(core, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#)
        #expect(first.status == 200)
        let etag = try #require(first.header("ETag"))
        #expect(first.text.hasPrefix(#"{"flags":[{"key":"banner","#))
        #expect(first.text.contains(#"{"key":"nope""#) == false)
        #expect(first.text.contains(#"{"key":"limits","reason":"DISABLED","variant":"","metadata""#))
        #expect(first.text.hasSuffix(#"],"metadata":{"flagSetId":"shop"}}"#))
        let same = post(core, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#, headers: ["If-None-Match": etag])
        #expect(same.status == 304 && same.body.isEmpty && same.header("ETag") == etag)
        // The tag is the answer's: another context gets another tag exactly when its answer differs.
        let otherContext = post(core, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u2"}}"#)
        #expect(otherContext.status == 200 && (otherContext.header("ETag") == etag) == (otherContext.text == first.text))
        let email = post(core, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1","email":"a@example.com"}}"#)
        #expect(email.text != first.text && email.header("ETag") != etag, "\(email.text)")
        for match in ["W/" + etag, "*", "\"other\", " + etag] {
            let weak = post(core, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#, headers: ["If-None-Match": match])
            #expect(weak.status == 304, "\(match)")
        }

        try fixture.stack.flags.set("new-checkout", enabled: false)
        #expect(try core.refresh())
        let changed = post(core, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#, headers: ["If-None-Match": etag])
        #expect(changed.status == 200 && changed.header("ETag") != etag)
        #expect(changed.text.contains(#"{"key":"new-checkout","reason":"DISABLED""#))
        #expect(try core.refresh() == false, "nothing moved since")
        try fixture.stack.set(.string("dark"), in: .user, forKey: "theme")
        _ = try fixture.stack.flushSynchronously()
        #expect(try core.refresh(), "another domain moved the change log")
        let again = post(
            core, "/ofrep/v1/evaluate/flags", #"{"context":{"targetingKey":"u1"}}"#,
            headers: ["If-None-Match": changed.header("ETag") ?? ""])
        #expect(again.status == 304, "the flags did not change")
    }

    /// OFREP 0.3: the bulk answer names the event stream at the request's Host, and a re-fetch
    /// with `flagConfigEtag` (from an event) never answers flags older than the event's.
    @Test func eventStreamsAndFlagConfigEtag() throws {
        let fixture = try Fixture()
        let core = try ServeCore(stack: fixture.stack)
        let body = #"{"context":{"targetingKey":"u1"}}"#
        let advertised = post(core, "/ofrep/v1/evaluate/flags", body, headers: ["Host": "127.0.0.1:8016"])
        #expect(advertised.text.contains(#"],"eventStreams":[{"type":"sse","url":"http://127.0.0.1:8016/ofrep/v1/events"}],"metadata""#))
        // A Host the client chose (a server with a token answers other names than loopback)
        // is echoed only when it is host text; otherwise no stream is advertised.
        for host in [
            #"evil"host"#, "a\\b", "</script>", "x.example\r\nSet-Cookie: a=b", "ä.example", String(repeating: "a", count: 300),
            "[::1]evil.com", "[::1][evil]", "localhost:abc", "127.0.0.1:99999999", "[::1]:1:2", "127.0.0.1:", "[]:80", ":80",
        ] {
            #expect(OFREP.eventStreams(host: host) == nil, "\(host.debugDescription)")
        }
        for host in ["prefs.example:8016", "localhost", "127.0.0.1:65535", "[::1]", "[fe80::1]:8016"] {
            #expect(OFREP.eventStreams(host: host) != nil, "\(host)")
        }
        let v6 = post(core, "/ofrep/v1/evaluate/flags", body, headers: ["Host": "[::1]:8016"])
        #expect(v6.text.contains(#""url":"http://[::1]:8016/ofrep/v1/events""#), "\(v6.text)")
        let before = core.configETag
        #expect(before.hasPrefix("\"") && before.count == 18)

        // Another process changes the flags; the server has not read the store since.
        try fixture.stack.flags.set("new-checkout", enabled: false)
        let stale = post(core, "/ofrep/v1/evaluate/flags/new-checkout", body)
        #expect(stale.text.contains(#""value":false,"reason":"TARGETING_MATCH""#), "no refetch parameter: the flags held")
        let current = try FlagSnapshot.read(fixture.stack)
        let tag = ServeCore.configETag(current.digest)
        #expect(tag != before)
        let query = "flagConfigEtag=" + (tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let quick = core.quickAnswer(
            ServeRequest(method: "POST", path: "/ofrep/v1/evaluate/flags", query: query, body: Array(body.utf8)), steps: 10_000)
        #expect(quick == nil, "reading the store is not a quick answer")
        let refetched = core.handle(
            ServeRequest(method: "POST", path: "/ofrep/v1/evaluate/flags/new-checkout", query: query, body: Array(body.utf8)))
        #expect(
            refetched.text == #"{"key":"new-checkout","reason":"DISABLED","variant":"","metadata":{"flagSetId":"shop","owner":"payments"}}"#
        )
        #expect(core.configETag == tag)
        // The tag held: quick again, no store read.
        #expect(
            core.quickAnswer(
                ServeRequest(method: "POST", path: "/ofrep/v1/evaluate/flags", query: query, body: Array(body.utf8)), steps: 10_000) != nil)
        let hex = String(tag.dropFirst().dropLast())
        #expect(
            OFREP.refetchEvent(configETag: tag)
                == "id: \"\(hex)\"\nevent: message\ndata: {\"type\":\"refetchEvaluation\",\"etag\":\"\\\"\(hex)\\\"\"}\n\n")
    }

    @Test func tokenAndHostChecks() throws {
        let fixture = try Fixture()
        let open = try ServeCore(stack: fixture.stack)
        #expect(post(open, "/ofrep/v1/evaluate/flags/banner", "{}", headers: ["Host": "127.0.0.1:8016"]).status == 200)
        #expect(post(open, "/ofrep/v1/evaluate/flags/banner", "{}", headers: ["Host": "localhost"]).status == 200)
        #expect(post(open, "/ofrep/v1/evaluate/flags/banner", "{}", headers: ["Host": "[::1]:80"]).status == 200)
        let rebinding = post(open, "/ofrep/v1/evaluate/flags/banner", "{}", headers: ["Host": "evil.example:8016"])
        #expect(rebinding.status == 403 && rebinding.text.contains("not a loopback name"))

        let guarded = try ServeCore(stack: fixture.stack, options: ServeOptions(token: "s3cret-token"))
        let none = post(guarded, "/ofrep/v1/evaluate/flags/banner", "{}")
        #expect(none.status == 401 && none.header("WWW-Authenticate") != nil && !none.text.contains("s3cret"))
        for wrong in ["Bearer s3cret-toke", "Bearer s3cret-token2", "Basic s3cret-token", "Bearer ", "s3cret-token"] {
            #expect(post(guarded, "/ofrep/v1/evaluate/flags/banner", "{}", headers: ["Authorization": wrong]).status == 401, "\(wrong)")
        }
        let right = post(
            guarded, "/ofrep/v1/evaluate/flags/banner", "{}", headers: ["Authorization": "Bearer s3cret-token", "Host": "flags.example"])
        #expect(right.status == 200)
        #expect(guarded.handle(ServeRequest(method: "GET", path: "/")).status == 200, "the page holds no data")
        #expect(guarded.handle(ServeRequest(method: "GET", path: "/api/flags")).status == 401)
        // Loopback without a token: flag evaluation is open to every local user, the store's
        // data needs the token of the run.
        let run = BearerToken.random()
        #expect(run.count == 64 && run != BearerToken.random())
        let loopback = try ServeCore(stack: fixture.stack, options: ServeOptions(inspectorToken: run))
        #expect(post(loopback, "/ofrep/v1/evaluate/flags/banner", "{}").status == 200)
        #expect(loopback.handle(ServeRequest(method: "GET", path: "/")).status == 200, "the page holds no data")
        for path in ["/api/flags", "/api/summary", "/api/keys", "/api/key?domain=user&key=theme", "/api/events"] {
            let refused = loopback.handle(ServeRequest(method: "GET", target: path))
            #expect(refused.status == 401 && !refused.text.contains(run), "\(path)")
            let wrong = loopback.handle(ServeRequest(method: "GET", target: path, headers: ["Authorization": "Bearer x"]))
            #expect(wrong.status == 401, "\(path)")
        }
        #expect(
            loopback.handle(ServeRequest(method: "GET", path: "/api/flags", headers: ["Authorization": "Bearer " + run])).status
                == 200)
        #expect(BearerToken.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!BearerToken.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!BearerToken.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!BearerToken.constantTimeEqual([], Array("a".utf8)))
    }

    /// Evaluations, the store's data and errors are never kept by a cache or a browser
    /// (`Cache-Control: no-store`); the inspector's page, which holds no data, is revalidated
    /// (`no-cache`).
    @Test func everyAnswerButThePageIsNotStored() throws {
        let fixture = try Fixture()
        try fixture.stack.set(.string("dark"), in: .user, forKey: "theme")
        let run = "run-token"
        let core = try ServeCore(stack: fixture.stack, options: ServeOptions(inspectorToken: run))
        let bearer = ["Authorization": "Bearer " + run]
        let bulk = post(core, "/ofrep/v1/evaluate/flags", "{}")
        var answers: [(String, ServeResponse)] = [
            ("one flag", post(core, "/ofrep/v1/evaluate/flags/new-checkout", "{}")),
            ("a disabled flag", post(core, "/ofrep/v1/evaluate/flags/limits", "{}")),
            ("no such flag", post(core, "/ofrep/v1/evaluate/flags/nope", "{}")),
            ("a malformed body", post(core, "/ofrep/v1/evaluate/flags/banner", "{")),
            ("every flag", bulk),
            ("304", post(core, "/ofrep/v1/evaluate/flags", "{}", headers: ["If-None-Match": bulk.header("ETag") ?? ""])),
            ("a wrong method", core.handle(ServeRequest(method: "GET", path: "/ofrep/v1/evaluate/flags/banner"))),
            ("no such path", core.handle(ServeRequest(method: "GET", path: "/nothing"))),
            ("another Host", post(core, "/ofrep/v1/evaluate/flags/banner", "{}", headers: ["Host": "evil.example"])),
            ("/api without the token", core.handle(ServeRequest(method: "GET", path: "/api/summary"))),
            ("/api/events refused", try #require(core.refusal(ServeRequest(method: "GET", path: "/api/events")))),
        ]
        for target in ["/api/summary", "/api/keys?q=th", "/api/key?domain=user&key=theme", "/api/key?domain=user&key=nope", "/api/flags"] {
            answers.append((target, core.handle(ServeRequest(method: "GET", target: target, headers: bearer))))
        }
        #expect(answers[5].1.status == 304)
        for (name, answer) in answers {
            #expect(answer.header("Cache-Control") == "no-store", "\(name): \(answer.status) \(answer.headers)")
            #expect(answer.headers.filter { $0.name.lowercased() == "cache-control" }.count == 1, "\(name): \(answer.headers)")
        }
        #expect(core.handle(ServeRequest(method: "GET", path: "/")).header("Cache-Control") == "no-cache")
        #expect(
            core.quickAnswer(ServeRequest(method: "POST", path: "/ofrep/v1/evaluate/flags/banner"), steps: 10_000)?.header("Cache-Control")
                == "no-store")
    }

    @Test func inspectorPagesAndJSON() throws {
        let fixture = try Fixture()
        try fixture.stack.set(.string("dark"), in: .user, forKey: "theme")
        _ = try fixture.stack.flushSynchronously()
        try fixture.stack.set(.string("light"), in: .user, forKey: "theme")
        _ = try fixture.stack.flushSynchronously()
        let core = try ServeCore(stack: fixture.stack)
        let page = core.handle(ServeRequest(method: "GET", path: "/"))
        #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(
            page.text.contains(#"<label for="search">Search keys</label>"#) && !page.text.contains("http://")
                && !page.text.contains("https://"))
        #expect(core.handle(ServeRequest(method: "GET", path: "/inspector.js")).text.contains("/ofrep/v1/evaluate/flags/"))
        let keys = core.handle(ServeRequest(method: "GET", target: "/api/keys?q=THE"))
        #expect(keys.text == #"{"keys":[{"domain":"user","key":"theme","preview":"\"light\""}],"more":false}"#)
        let key = core.handle(ServeRequest(method: "GET", target: "/api/key?domain=user&key=theme"))
        #expect(key.status == 200 && key.text.contains(#""value":"light""#) && key.text.contains(#""new":"\"dark\"""#), "\(key.text)")
        #expect(core.handle(ServeRequest(method: "GET", target: "/api/key?domain=user&key=nope")).status == 404)
        #expect(core.handle(ServeRequest(method: "GET", target: "/api/key?domain=B%20AD&key=x")).status == 400)
        let flags = core.handle(ServeRequest(method: "GET", path: "/api/flags"))
        #expect(
            flags.text.contains(
                #"{"key":"limits","static":false,"state":"DISABLED","variants":{"small":{"n":1}},"defaultVariant":"small","targeting":null"#
            ))
        #expect(core.handle(ServeRequest(method: "GET", path: "/api/summary")).text.contains(#"{"name":"switch","keys":6}"#))
    }

    /// A request's evaluation steps, all its flags together, are bounded (--max-steps): a
    /// single flag over it is its flag's error result, every flag at once a 500.
    @Test func aRequestsStepsAreBounded() throws {
        let fixture = try Fixture()
        let items = (0..<100).map(String.init).joined(separator: ",")
        let sum = #"{"reduce":[[\#(items)],{"+":[{"var":"current"},{"var":"accumulator"}]},0]}"#
        let flag = #"{"state":"ENABLED","variants":{"a":"a","b":"b"},"defaultVariant":"b","targeting":{"if":[{">":[\#(sum),0]},"a","b"]}}"#
        try fixture.stack.flags.importDocument(try JSONValue(parsing: #"{"flags":{"sum":\#(flag)}}"#))
        let roomy = try ServeCore(stack: fixture.stack, options: ServeOptions(maximumSteps: 100_000))
        #expect(post(roomy, "/ofrep/v1/evaluate/flags/sum", "{}").text.hasPrefix(#"{"key":"sum","value":"a","reason":"TARGETING_MATCH""#))
        #expect(post(roomy, "/ofrep/v1/evaluate/flags", "{}").status == 200)
        let tight = try ServeCore(stack: fixture.stack, options: ServeOptions(maximumSteps: 200))
        let single = post(tight, "/ofrep/v1/evaluate/flags/sum", "{}")
        #expect(
            single.status == 400
                && single.text
                    == #"{"key":"sum","errorCode":"GENERAL","errorDetails":"targeting of \"sum\": the request needs more than its budget of 200 evaluation steps"}"#,
            "\(single.text)")
        let bulk = post(tight, "/ofrep/v1/evaluate/flags", "{}")
        #expect(bulk.status == 500 && bulk.text.contains("budget of 200 steps (prefs serve --max-steps)") && bulk.header("ETag") == nil)
        // A flag that needs few steps is answered under the same budget.
        #expect(post(tight, "/ofrep/v1/evaluate/flags/banner", #"{"context":{"targetingKey":"u1"}}"#).status == 200)
        // A quick answer is the answer when it takes few steps and no store; nil otherwise.
        func quick(_ path: String, _ method: String = "POST") -> ServeResponse? {
            roomy.quickAnswer(ServeRequest(method: method, path: path, body: Array("{}".utf8)), steps: 200)
        }
        #expect(quick("/ofrep/v1/evaluate/flags/sum") == nil && quick("/ofrep/v1/evaluate/flags") == nil)
        #expect(quick("/ofrep/v1/evaluate/flags/banner") == post(roomy, "/ofrep/v1/evaluate/flags/banner", "{}"))
        #expect(quick("/api/summary", "GET") == nil && quick("/", "GET")?.status == 200)
        #expect(tight.quickAnswer(ServeRequest(method: "POST", path: "/ofrep/v1/evaluate/flags/sum"), steps: 1000)?.status == 400)
    }
}

/// Issue 30: OFREP answers flagd's `lower`, `upper` and `rollout` as `flag eval` does.
@Suite("prefs serve core: flagd's lower, upper and rollout", .timeLimit(.minutes(5)))
struct ServeCoreOperatorTests {
    @Test func ofrepEvaluatesLowerUpperAndRollout() throws {
        let directory = try makeTemporaryDirectory(prefix: "prefs-serve")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stack = try KeyValueStack(
            path: directory + "/prefs.db", options: .init(memoryTier: .inProcess, environment: ["XDG_RUNTIME_DIR": directory]))
        try stack.flags.importDocument(
            try JSONValue(
                parsing: """
                    {"flags": {
                      "staff": {"state": "ENABLED", "variants": {"yes": true, "no": false}, "defaultVariant": "no",
                        "targeting": {"if": [{"ends_with": [{"lower": {"var": "email"}}, "@example.com"]}, "yes", "no"]}},
                      "region": {"state": "ENABLED", "variants": {"EU": "eu", "other": "other"}, "defaultVariant": "other",
                        "targeting": {"if": [{"in": [{"upper": {"var": "country"}}, ["DE", "FR"]]}, "EU", null]}},
                      "rolled": {"state": "ENABLED", "variants": {"old": 1, "new": 2}, "defaultVariant": "old",
                        "targeting": {"rollout": [1704067200, 1706745600, "new"]}}
                    }}
                    """))
        let core = try ServeCore(stack: stack)
        func post(_ key: String, _ context: String) -> String {
            core.handle(
                ServeRequest(
                    method: "POST", path: "/ofrep/v1/evaluate/flags/" + key, headers: [:], body: Array(#"{"context":\#(context)}"#.utf8))
            ).text
        }
        #expect(
            post("staff", #"{"email":"Ada@EXAMPLE.com"}"#)
                == #"{"key":"staff","value":true,"reason":"TARGETING_MATCH","variant":"yes","metadata":{}}"#)
        #expect(
            post("region", #"{"country":"de"}"#)
                == #"{"key":"region","value":"eu","reason":"TARGETING_MATCH","variant":"EU","metadata":{}}"#)
        #expect(
            post("rolled", #"{"targetingKey":"u1"}"#)
                == #"{"key":"rolled","value":2,"reason":"TARGETING_MATCH","variant":"new","metadata":{}}"#)
    }
}
