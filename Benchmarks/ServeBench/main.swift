// Library benchmark for `scripts/bench serve`: writes the benchmark's flags into STORE, then
// measures single-flag OFREP evaluation through ServeCore.handle in process on one core
// (the ceiling of what prefs-serve can answer over HTTP).
//
//   swift run -c release prefs-serve-bench STORE [SECONDS] [--heavy N]
//
// --heavy N also writes N flags `heavy-1`… whose targeting takes about 1.5 million evaluation
// steps each (accepted: under the 2 million a rule may take), for `scripts/bench serve`'s run
// under attack.
import Foundation
import PrefsCore
import PrefsServe

var arguments = Array(CommandLine.arguments.dropFirst())
var heavy = 0
if let index = arguments.firstIndex(of: "--heavy"), index + 1 < arguments.count, let count = Int(arguments[index + 1]) {
    heavy = count
    arguments.removeSubrange(index...(index + 1))
}
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: prefs-serve-bench STORE [SECONDS] [--heavy N]\n".utf8))
    exit(2)
}
let seconds = Double(arguments.dropFirst().first ?? "") ?? 2.0
/// A `reduce` over 400 items whose every step is a `reduce` over 400 more: about 1.5 million steps.
let heavyItems = (0..<400).map(String.init).joined(separator: ",")
let heavyInner = #"{"reduce":[[\#(heavyItems)],{"+":[{"var":"accumulator"},{"var":"current"}]},0]}"#
let heavyRule = #"{"if":[{">":[{"reduce":[[\#(heavyItems)],{"+":[{"var":"accumulator"},\#(heavyInner)]},0]},1]},"big","small"]}"#
let heavyFlags = (0..<heavy).map { index in
    #","heavy-\#(index + 1)": {"state": "ENABLED", "variants": {"big": "big", "small": "small"}, "defaultVariant": "small","#
        + #" "targeting": \#(heavyRule)}"#
}.joined()
let document = """
    {"flags": {
      "static": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
      "rule": {"state": "ENABLED", "variants": {"new": "new", "old": "old"}, "defaultVariant": "old",
               "targeting": {"if": [{"and": [{"ends_with": [{"var": "email"}, "@example.com"]},
                                              {"sem_ver": [{"var": "app"}, ">=", "2.1.0"]}]}, "new", "old"]}}
      \(heavyFlags)
    }}
    """
/// The body scripts/bench sends with wrk.
let body = #"{"context":{"targetingKey":"user-1","email":"ada@example.com","app":"2.3.1"}}"#

let stack = try KeyValueStack(path: path, options: .init(memoryTier: .inProcess))
try stack.flags.importDocument(try JSONValue(parsing: document), replace: true)
_ = try stack.flushSynchronously()
let core = try ServeCore(stack: stack)
let request = ServeRequest(
    method: "POST", path: "/ofrep/v1/evaluate/flags/rule", headers: ["Host": "127.0.0.1", "Content-Type": "application/json"],
    body: Array(body.utf8))
let expected = core.handle(request)
guard expected.status == 200, expected.text.contains(#""variant":"new""#) else {
    FileHandle.standardError.write(Data("unexpected answer: \(expected.status) \(expected.text)\n".utf8))
    exit(1)
}
var count = 0
var sink = 0
let start = DispatchTime.now().uptimeNanoseconds
let deadline = start + UInt64(seconds * 1e9)
while DispatchTime.now().uptimeNanoseconds < deadline {
    for _ in 0..<1000 { sink &+= core.handle(request).body.count }
    count += 1000
}
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
print(String(format: "%.0f", Double(count) / elapsed) + (sink == 0 ? " (no bytes)" : ""))
if heavy > 0 {
    // One heavy flag on its own: answered (under the rule's own limit), and how long it takes.
    let heavyRequest = ServeRequest(
        method: "POST", path: "/ofrep/v1/evaluate/flags/heavy-1", headers: ["Host": "127.0.0.1"], body: Array("{}".utf8))
    let before = DispatchTime.now().uptimeNanoseconds
    let answer = core.handle(heavyRequest)
    let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - before) / 1e6
    guard answer.status == 200, answer.text.contains(#""variant":"big""#) else {
        FileHandle.standardError.write(Data("unexpected answer for heavy-1: \(answer.status) \(answer.text)\n".utf8))
        exit(1)
    }
    print(String(format: "heavy-flag-ms %.1f", milliseconds))
}
