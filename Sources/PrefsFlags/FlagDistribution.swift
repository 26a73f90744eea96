import FoundationEssentials
import PrefsBase
import PrefsJSON

/// How a flag's outcomes spread over a sample of contexts (`prefs flag stats`), and for a
/// `fractional` rule the share each variant is configured to get.
///
/// ```swift
/// let stats = try FlagDistribution.measure("split", in: flags, contexts: .synthetic(count: 10_000, seed: 0))
/// ```
public struct FlagDistribution: Sendable {
    /// One outcome (a variant, or in parentheses what gave none: see ``FlagDiff``).
    public struct Bucket: Sendable, Equatable {
        /// The outcome.
        public var outcome: String
        /// Its value.
        public var value: JSONValue
        /// How many contexts got it.
        public var count: Int
        /// The share `fractional` is configured to give it, in percent, when the flag's rule
        /// has one `fractional` with literal weights.
        public var configuredPercent: Double?
    }

    /// The flag.
    public var key: String
    /// How many contexts were evaluated.
    public var total: Int
    /// The outcomes, most frequent first; configured variants no context got are listed with 0.
    public var buckets: [Bucket]
    /// Whether the flag's rule has a `fractional` whose weights are known.
    public var hasFractional: Bool

    /// Evaluates the flag for every context.
    ///
    /// - Parameters:
    ///   - flags: the flags.
    ///   - key: the flag.
    ///   - contexts: the evaluation contexts.
    ///   - now: seconds since 1970 for `$flagd.timestamp`; nil: the current time.
    /// - Throws: ``PrefsError`` from reading the contexts.
    public static func measure(_ key: String, in flags: FlagSet, contexts: EvaluationContexts, now: Int64? = nil) throws -> FlagDistribution
    {
        let seconds = now ?? WallClock.nowSeconds()
        let type = flags.naturalType(of: key)
        var counts: [String: (value: JSONValue, count: Int)] = [:]
        var total = 0
        try contexts.forEach { context in
            total += 1
            let result = flags.evaluate(key, type: type, default: .null, context: context, now: seconds)
            let name = FlagDiff.outcome(result)
            if let existing = counts[name] {
                counts[name] = (existing.value, existing.count + 1)
            } else {
                counts[name] = (result.value, 1)
            }
        }
        let configured = flags.configuredShares(of: key, now: seconds)
        var buckets = counts.map { name, entry in
            Bucket(
                outcome: name, value: entry.value, count: entry.count, configuredPercent: configured?.first { $0.variant == name }?.percent)
        }
        for share in configured ?? [] where counts[share.variant] == nil {
            let value = flags.flags[key]?.variants.first { $0.key == share.variant }?.value ?? .null
            buckets.append(Bucket(outcome: share.variant, value: value, count: 0, configuredPercent: share.percent))
        }
        buckets.sort { ($0.count, $1.outcome) > ($1.count, $0.outcome) }
        return FlagDistribution(key: key, total: total, buckets: buckets, hasFractional: configured != nil)
    }

    /// The distribution as one JSON object: `flag`, `contexts` and `variants` (each `outcome`,
    /// `value`, `count`, `percent` and, for `fractional`, `configuredPercent`).
    public var json: JSONValue {
        .object([
            .init("flag", .string(key)), .init("contexts", .number(String(total))),
            .init(
                "variants",
                .array(
                    buckets.map { bucket in
                        var members: [JSONValue.Member] = [
                            .init("outcome", .string(bucket.outcome)), .init("value", bucket.value),
                            .init("count", .number(String(bucket.count))),
                            .init("percent", .number(FlagDiff.percent(bucket.count, of: total))),
                        ]
                        if let configured = bucket.configuredPercent {
                            members.append(.init("configuredPercent", .number(LogicValue.format((configured * 10).rounded() / 10))))
                        }
                        return .object(members)
                    })),
        ])
    }
}
