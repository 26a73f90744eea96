// Library benchmark: flag evaluations per second on one core for a static flag, a rule with
// `if`, `ends_with` and `sem_ver`, and a `fractional` split over four variants.
//
//   swift run -c release prefs-flag-bench [SECONDS_PER_CASE]
import Foundation
import PrefsCore

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 1.0
let document = """
    {"flags": {
      "static": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
      "rule": {"state": "ENABLED", "variants": {"new": "new", "old": "old"}, "defaultVariant": "old",
               "targeting": {"if": [{"and": [{"ends_with": [{"var": "email"}, "@example.com"]},
                                              {"sem_ver": [{"var": "app"}, ">=", "2.1.0"]}]}, "new", "old"]}},
      "split": {"state": "ENABLED", "variants": {"a": 1, "b": 2, "c": 3, "d": 4}, "defaultVariant": "a",
                "targeting": {"fractional": [["a", 25], ["b", 25], ["c", 25], ["d", 25]]}}
    }}
    """
let members = try FlagDocument.validate(JSONValue(parsing: document))
let flags = FlagSet(entries: members.map { ($0.key, $0.value) })
let context: [String: LogicValue] = ["email": .string("ada@example.com"), "app": .string("2.3.1")]
let keys = (0..<1024).map { "user-\($0)" }

/// CPU time of this thread in seconds: the machine's load does not count in it.
func threadSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func measure(_ name: String, _ body: (Int) -> FlagResolution) -> Double {
    var count = 0
    var sink = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = threadSeconds()
    let deadline = start + UInt64(seconds * 1e9)
    while DispatchTime.now().uptimeNanoseconds < deadline {
        for i in 0..<1000 { sink &+= body(count &+ i).reason.utf8.count }
        count += 1000
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let cpu = threadSeconds() - cpuStart
    let rate = Double(count) / elapsed
    print(
        name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%12.0f evaluations/s", rate)
            + String(format: " (%.0f per CPU second)", Double(count) / cpu) + (sink == 0 ? "" : ""))
    return rate
}

let now: Int64 = 1_800_000_000
_ = measure("(a) static flag") { _ in flags.evaluate("static", type: .boolean, default: .bool(false), now: now) }
_ = measure("(b) if + ends_with + sem_ver") { _ in flags.evaluate("rule", type: .string, default: .string("?"), context: context, now: now)
}
_ = measure("(c) fractional over 4 variants") { i in
    flags.evaluate("split", type: .integer, default: .number("0"), context: context, targetingKey: keys[i & 1023], now: now)
}
// (c) hashes with version 3 (CBOR), the default; (d) is the same with version 2, the default
// before, for comparison with earlier figures.
let flagsV2 = FlagSet(entries: members.map { ($0.key, $0.value) }, fractionalVersion: .v2)
_ = measure("(d) fractional, hashing version 2") { i in
    flagsV2.evaluate("split", type: .integer, default: .number("0"), context: context, targetingKey: keys[i & 1023], now: now)
}

// Issue 21: `flag diff` of two versions of a document over 100,000 contexts (evaluations per
// second on one core, both sides counted; goal >= 300,000) and `flag explain` of its heaviest
// flag for one context (goal < 5 ms).
let next = """
    {"$evaluators": {"is_staff": {"ends_with": [{"var": "email"}, "@example.com"]}},
     "flags": {
      "static": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"},
      "rule": {"state": "ENABLED", "variants": {"new": "new", "old": "old"}, "defaultVariant": "old",
               "targeting": {"if": [{"and": [{"$ref": "is_staff"}, {"sem_ver": [{"var": "app"}, ">=", "2.0.0"]}]}, "new",
                                    {"fractional": [["new", 10], ["old", 90]]}]}},
      "split": {"state": "ENABLED", "variants": {"a": 1, "b": 2, "c": 3, "d": 4}, "defaultVariant": "a",
                "targeting": {"fractional": [["a", 40], ["b", 20], ["c", 20], ["d", 20]]}}
    }}
    """
let nextMembers = try FlagDocument.validate(JSONValue(parsing: next))
let nextFlags = FlagSet(entries: nextMembers.map { ($0.key, $0.value) })
var lines: [UInt8] = []
for i in 0..<100_000 {
    let email = i % 7 == 0 ? "u\(i)@example.com" : "u\(i)@mail.org"
    lines += Array(#"{"targetingKey":"user-\#(i)","email":"\#(email)","app":"\#(1 + i % 3).\#(i % 10).0"}"#.utf8) + [0x0A]
}
do {
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = threadSeconds()
    let diff = try FlagDiff.compare(flags, nextFlags, contexts: .lines(lines, name: "bench"), now: now)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let cpu = threadSeconds() - cpuStart
    print(
        "(e) flag diff, 100,000 contexts × 3 flags".padding(toLength: 44, withPad: " ", startingAt: 0)
            + String(format: "%12.0f evaluations/s", Double(diff.evaluations) / elapsed)
            + String(format: " (%.0f per CPU second; %.2f s, parsing included)", Double(diff.evaluations) / cpu, elapsed))
}
do {
    var times: [Double] = []
    var cpuTimes: [Double] = []
    var sink = 0
    for i in 0..<200 {
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = threadSeconds()
        let explanation = nextFlags.explain("rule", context: context, targetingKey: keys[i & 1023], now: now)
        sink &+= explanation.text.utf8.count
        cpuTimes.append((threadSeconds() - cpuStart) * 1e3)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    times.sort()
    cpuTimes.sort()
    print(
        "(f) flag explain of \"rule\" (text), median".padding(toLength: 44, withPad: " ", startingAt: 0)
            + String(format: "%12.3f ms wall (CPU %.3f ms; slowest of 200 %.3f ms wall)", times[100], cpuTimes[100], times[199])
            + (sink == 0 ? "" : ""))
}
