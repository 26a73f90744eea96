// Library benchmark for `scripts/bench serve`: writes the benchmark's flags into STORE, then
// measures single-flag OFREP evaluation through ServeCore.handle in process on one core
// (the ceiling of what prefs-serve can answer over HTTP).
//
//   swift run -c release prefs-serve-bench STORE [SECONDS]
import Foundation
import PrefsCore
import PrefsServe

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: prefs-serve-bench STORE [SECONDS]\n".utf8))
    exit(2)
}
let seconds = Double(arguments.dropFirst().first ?? "") ?? 2.0
let document = """
    {"flags": {
      "static": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
      "rule": {"state": "ENABLED", "variants": {"new": "new", "old": "old"}, "defaultVariant": "old",
               "targeting": {"if": [{"and": [{"ends_with": [{"var": "email"}, "@example.com"]},
                                              {"sem_ver": [{"var": "app"}, ">=", "2.1.0"]}]}, "new", "old"]}}
    }}
    """
/// The body scripts/bench sends with wrk.
let body = #"{"context":{"targetingKey":"user-1","email":"ada@example.com","app":"2.3.1"}}"#

let stack = try KeyValueStack(path: path, options: .init(memoryTier: .inProcess))
try stack.importFlags(try JSONValue(parsing: document), replace: true)
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
