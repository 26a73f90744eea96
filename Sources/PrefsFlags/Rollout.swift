import PrefsBase
import PrefsJSON

/// flagd's `rollout` operator: a time-based progressive rollout from one variant (or rule) to
/// another between two Unix times, as flagd's Go evaluator defines it (`rollout.go`).
///
/// `[start, end, to]` rolls from the default variant, `[start, end, from, to]` from `from`,
/// and a first operand that is an expression (`{"var": "email"}`) evaluating to a string is
/// the bucketing value; without one it is `flagKey + targetingKey`. "Now" is
/// `$flagd.timestamp`. Before `start` everyone gets `from`, from `end` on everyone gets `to`;
/// in between, the MurmurHash3 of the bucketing value's UTF-8 scaled to the window's length,
/// `(hash × duration) >> 32`, gets `to` when it is below the seconds elapsed. Anything
/// malformed (fewer than 3 operands, a time that is not a number, `end` not after `start`, no
/// bucketing value, no timestamp) gives null: the default variant.
enum Rollout {
    /// The operands read and the side chosen.
    struct Plan {
        /// The value hashed when the time falls inside the window.
        var bucketingValue: String
        /// Whether the bucketing value came from the first operand (else flag key and targetingKey).
        var fromBucketBy: Bool
        var start: Int64
        var end: Int64
        var now: Int64
        /// Seconds elapsed in the window (0 before it, the duration after it).
        var elapsed: Int64
        var duration: Int64
        /// The hash and bucket, when the time falls inside the window.
        var hash: UInt32?
        var bucket: UInt64?
        /// The rule rolled from; nil: the default variant (the shorthand).
        var from: JSONLogic.Node?
        var to: JSONLogic.Node
        /// Whether `to` is answered.
        var toWins: Bool
    }

    enum Outcome {
        case valid(Plan)
        /// Why the rollout gives null.
        case invalid(String)
    }

    /// Reads the operands (evaluating those that are expressions) and chooses the side.
    static func plan(_ args: [JSONLogic.Node], data: LogicValue, evaluate: (JSONLogic.Node) throws -> LogicValue) rethrows -> Outcome {
        guard args.count >= 3 else { return .invalid("rollout needs at least 3 operands (start, end, the variant rolled to)") }
        let timestamp: Int64
        if case .number(let n)? = data["$flagd"]?["timestamp"], n.isFinite {
            timestamp = Int64(Int32(truncatingIfNeeded: JSONLogic.int(n)))
        } else {
            timestamp = 0
        }
        guard timestamp != 0 else { return .invalid("no $flagd.timestamp") }
        var index = 0
        var bucketBy = ""
        var fromBucketBy = false
        let first = try evaluate(args[0])
        switch (first, args[0]) {
        case (.number, _): break
        case (.null, _): index = 1
        case (.string, .literal):
            return .invalid("the first operand is a literal string: a bucketing value must be an expression such as {\"var\": \"email\"}")
        case (.string(let s), _):
            bucketBy = s
            fromBucketBy = !s.isEmpty
            index = 1
        default:
            return .invalid("the first operand is \(first.json.compactText): a time or a bucketing expression was expected")
        }
        if bucketBy.isEmpty {
            guard case .string(let targetingKey)? = data["targetingKey"] else {
                return .invalid("no bucketing value and no targetingKey")
            }
            let flagKey = data["$flagd"]?["flagKey"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
            bucketBy = flagKey + targetingKey
        }
        func time(_ position: Int) throws -> Int64? {
            guard position < args.count else { return nil }
            let value = position == 0 ? first : try evaluate(args[position])
            guard case .number(let n) = value, n.isFinite, n > -2_147_483_649, n < 2_147_483_648 else { return nil }
            return Int64(n.rounded(.towardZero))
        }
        guard let start = try time(index) else { return .invalid("the start time is not a number of seconds (32-bit)") }
        guard let end = try time(index + 1) else { return .invalid("the end time is not a number of seconds (32-bit)") }
        guard end > start else { return .invalid("the end time \(end) is not after the start time \(start)") }
        let remaining = args.count - index - 2
        guard remaining >= 1 else { return .invalid("no variant to roll to") }
        let from: JSONLogic.Node? = remaining == 1 ? nil : args[index + 2]
        let to = remaining == 1 ? args[index + 2] : args[index + 3]
        let duration = end - start
        let elapsed = timestamp <= start ? 0 : timestamp >= end ? duration : timestamp - start
        var plan = Plan(
            bucketingValue: bucketBy, fromBucketBy: fromBucketBy, start: start, end: end, now: timestamp, elapsed: elapsed,
            duration: duration, from: from, to: to, toWins: elapsed >= duration)
        if elapsed > 0 && elapsed < duration {
            let hash = MurmurHash3.x86Hash32(Array(bucketBy.utf8), seed: 0)
            let bucket = (UInt64(hash) * UInt64(duration)) >> 32
            plan.hash = hash
            plan.bucket = bucket
            plan.toWins = bucket < UInt64(elapsed)
        }
        return .valid(plan)
    }
}

/// flagd's `lower` and `upper`: ASCII letters only, every other byte kept, so every provider
/// answers the same whatever its locale.
enum StringCasing {
    static func lower(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    static func upper(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
    }
}
