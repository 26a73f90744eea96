import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// Issue 38, item 3: one rule for what is a flag. A key of `switch` is a flag when its value is
/// stored or given by an override; a default (the schema's, as after the README tour's
/// `schema load`) is a configuration value `get` answers, never a flag — not in `flag list`,
/// `flag diff @store`, `flag export`, `flag eval`/`enabled`/`show`, nor in `prefs serve`'s OFREP
/// single and bulk answers and inspector.
@Suite("what is a flag", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct FlagRuleTests {
    /// The README tour's flags and schema: `switch.max_retries` has the schema default 3.
    static func tour() throws -> Sandbox {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["flag", "import", repositoryRoot + "/examples/flags.json"])
        try box.runOK(["schema", "load", repositoryRoot + "/examples/schema.json"])
        let get = try box.runOK(["get", "switch", "max_retries"])
        #expect(get.status == 0 && get.stdout == "3\n", "the default is still a value: \(get)")
        return box
    }

    @Test func aSchemaDefaultIsNoFlagOnTheCommandLine() throws {
        let box = try Self.tour()
        let list = try box.runOK(["flag", "list"])
        #expect(
            list.status == 0
                && list.stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["banner", "deploy-frozen", "new-checkout"],
            "\(list)")
        let listJSON = try box.runOK(["flag", "list", "--json"])
        #expect(
            listJSON.status == 0 && !listJSON.stdout.contains("max_retries") && listJSON.stdout.split(separator: "\n").count == 3,
            "\(listJSON)")
        // The file the store was imported from: no change, exit 0 (was "removed max_retries", exit 1).
        let diff = try box.runOK(["flag", "diff", "@store", repositoryRoot + "/examples/flags.json", "--synthetic", "100"])
        #expect(diff.status == 0 && !diff.stdout.contains("max_retries") && !diff.stderr.contains("max_retries"), "\(diff)")
        let export = try box.runOK(["flag", "export"])
        #expect(export.status == 0 && !export.stdout.contains("max_retries"), "\(export)")
        let eval = try box.runFailing(["flag", "eval", "max_retries"], status: 1)
        #expect(eval.stdout.isEmpty && eval.stderr == "prefs: flag 'max_retries' not found\n", "\(eval)")
        let answered = try box.runOK(["flag", "eval", "max_retries", "--default", "0", "--json"])
        #expect(answered.stdout.hasPrefix(#"{"value":0,"variant":null,"reason":"ERROR","errorCode":"FLAG_NOT_FOUND""#), "\(answered)")
        try box.runFailing(["flag", "enabled", "max_retries"], status: 2)
        try box.runFailing(["flag", "show", "max_retries"], status: 1)
        let explain = try box.runOK(["flag", "explain", "max_retries"])
        #expect(explain.stdout.contains("no such flag"), "\(explain)")
        // A stored value and an override are flags, by the same rule, on every path.
        let overridden = try box.runOK(["--override", "switch:max_retries=5", "flag", "list"])
        #expect(overridden.stdout.contains("max_retries\tENABLED\tnumber\tstatic\tno\t5\n"), "\(overridden)")
        let overriddenExport = try box.runOK(["--override", "switch:max_retries=5", "flag", "export"])
        #expect(overriddenExport.stdout.contains(#""max_retries": {"#), "\(overriddenExport)")
        try box.runOK(["set", "switch", "max_retries", "4"])
        let stored = try box.runOK(["flag", "eval", "max_retries", "--json"])
        #expect(stored.stdout.hasPrefix(#"{"value":4,"variant":"static","reason":"STATIC""#), "\(stored)")
        let storedDiff = try box.run(
            ["flag", "diff", "@store", repositoryRoot + "/examples/flags.json", "--synthetic", "100"], expecting: 1)
        #expect(storedDiff.status == 1 && storedDiff.stdout.contains("max_retries"), "a stored value is a flag: \(storedDiff)")
    }

    // Over OFREP and in the inspector: `ServeApplicationTests.aSchemaDefaultIsNoFlagOverOFREPOrInTheInspector`.
}

/// Issue 38, item 1: a plain value of `switch` is a static flag with the variant `static` on
/// every path, and the OpenFeature Python SDK with `openfeature-provider-ofrep` (PyPI) reads it,
/// a DISABLED flag and a flag without a default variant without an error.
@Suite("static and code-default answers", .serialized, .timeLimit(.minutes(5)), .ownThreads)
struct StaticFlagAnswerTests {
    @Test func aPlainValueHasTheVariantStaticEverywhere() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "switch", "maintenance", "true"])
        let eval = try box.runOK(["flag", "eval", "maintenance", "--json"])
        #expect(
            eval.stdout == #"{"value":true,"variant":"static","reason":"STATIC","errorCode":null,"errorMessage":null,"metadata":{}}"#
                + "\n",
            "\(eval)")
        let export = try JSONValue(parsing: try box.runOK(["flag", "export"]).stdout)
        #expect(export["flags"]?["maintenance"]?["defaultVariant"] == .string("static"), "\(export)")
        #expect(export["flags"]?["maintenance"]?["variants"] == .object([.init("static", .bool(true))]), "\(export)")
        let list = try JSONValue(parsing: try box.runOK(["flag", "list", "--json"]).stdout)
        #expect(list["defaultVariant"] == .string("static") && list["variants"] == .array([.string("static")]), "\(list)")
        // OFREP's single and bulk answers: `ServeApplicationTests.aPlainValueOfSwitchHasTheVariantStatic`.
    }

    /// The answers against the current OFREP document (0.3.0, `Fixtures/ofrep/openapi-0.3.0.yaml`):
    /// a static flag, single and bulk, and a disabled flag are valid; a code default with reason
    /// DEFAULT fails only the document's reason enum, which omits DEFAULT (docs/serve.md).
    @Test(.tags(.network), .enabled(PythonClients.requirement) { await PythonClients.available() })
    func theAnswersAreValidOFREP030SaveTheDefaultReason() throws {
        let python = try PythonClients.python.get()
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "switch", "maintenance", "true"])
        try box.runOK(["set", "switch", "off", #"{"state":"DISABLED","variants":{"on":true},"defaultVariant":"on"}"#])
        let single = "/ofrep/v1/evaluate/flags/{key}"
        var cases: [JSONValue] = []
        func add(_ name: String, _ path: String, _ exchange: HTTPExchange) {
            cases.append(
                .object([
                    .init("name", .string(name)), .init("path", .string(path)), .init("status", .number(String(exchange.status))),
                    .init("body", .string(exchange.body)),
                ]))
        }
        let server = try ServeProcess(box)
        for flag in ["maintenance", "off"] {
            add(flag, single, try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags/" + flag, "{}"))
        }
        add("bulk", "/ofrep/v1/evaluate/flags", try HTTPExchange.post(server.port, "/ofrep/v1/evaluate/flags", "{}"))
        #expect(server.stop().status == 0)
        try box.runOK(["set", "switch", "none", #"{"state":"ENABLED","variants":{"a":"A"},"defaultVariant":null}"#])
        let second = try ServeProcess(box)
        add("none", single, try HTTPExchange.post(second.port, "/ofrep/v1/evaluate/flags/none", "{}"))
        #expect(second.stop().status == 0)
        let file = box.root + "/cases.json"
        try JSONValue.array(cases).compactText.write(toFile: file, atomically: true, encoding: .utf8)
        let checked = try Sandbox.exec(
            python, [PythonClients.fixtures + "/ofrep_schema.py", file, "openapi-0.3.0.yaml"], stdin: nil,
            environment: ProcessInfo.processInfo.environment)
        let lines = checked.stdout.split(separator: "\n").filter { !$0.hasPrefix("literal ") }
        #expect(
            lines == [
                "ok maintenance", "ok off", "ok bulk",
                "FAIL none: reason: 'DEFAULT' is not one of ['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'UNKNOWN']",
            ], "\(checked)")
        #expect(cases.count == 4 && checked.status == 1, "\(checked)")
    }

    @Test(.tags(.network), .enabled(PythonClients.requirement) { await PythonClients.available() })
    func thePythonProviderReadsStaticDisabledAndCodeDefaultAnswers() throws {
        let python = try PythonClients.python.get()
        let box = try ServeTests().imported()
        try box.runOK(["set", "switch", "maintenance", "true"])
        try box.runOK(["set", "switch", "motd", "hello"])
        try box.runOK(["set", "switch", "limit", "7"])
        let server = try ServeProcess(box)
        defer { _ = server.stop() }
        // flag, type, the caller's default, context → value, variant, reason (never an error).
        let cases: [(String, String, JSONValue, String, JSONValue, JSONValue, String)] = [
            ("maintenance", "boolean", .bool(false), "{}", .bool(true), .string("static"), "STATIC"),
            ("motd", "string", .string("x"), "{}", .string("hello"), .string("static"), "STATIC"),
            ("limit", "integer", .number("0"), "{}", .number("7"), .string("static"), "STATIC"),
            ("disabled-flag", "boolean", .bool(false), "{}", .bool(false), .string(""), "DISABLED"),
            ("disabled-flag", "boolean", .bool(true), "{}", .bool(true), .string(""), "DISABLED"),
            ("null-default-flag", "string", .string("x"), "{}", .string("x"), .string(""), "DEFAULT"),
            ("null-default-flag", "string", .string("x"), #"{"tier":"gold"}"#, .string("B"), .string("b"), "TARGETING_MATCH"),
        ]
        let input: [JSONValue] = try cases.map { flag, type, fallback, context, _, _, _ in
            .object([
                .init("flag", .string(flag)), .init("type", .string(type)), .init("default", fallback),
                .init("context", try JSONValue(parsing: context)),
            ])
        }
        let answers = try PythonClients.sdkAnswers(python, url: server.url, cases: input, directory: box.root)
        for (index, (flag, _, _, context, value, variant, reason)) in cases.enumerated() where index < answers.count {
            let answer = try JSONValue(parsing: String(answers[index]))
            let expected: JSONValue = .object([
                .init("value", value), .init("variant", variant), .init("reason", .string(reason)), .init("errorCode", .null),
            ])
            #expect(answer.isEquivalent(to: expected), "\(flag) \(context): \(answer), expected \(expected)")
        }
    }
}
