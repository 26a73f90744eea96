import PrefsBase
import PrefsJSON

/// flagd's `fractional` operator.
enum Fractional {
    /// The operands of `fractional`: the value to bucket by (nil: flagKey + targetingKey) and
    /// the buckets. A first operand that is not a bucket is the bucketing value; one that
    /// evaluates to null (a missing property) falls back to flagKey + targetingKey, as flagd
    /// does.
    static func operands(_ args: [LogicValue]) -> (bucketBy: LogicValue?, buckets: ArraySlice<LogicValue>) {
        guard let first = args.first else { return (nil, args[...]) }
        if case .array = first { return (nil, args[...]) }
        return (first == .null ? nil : first, args.dropFirst())
    }

    /// `args` are already evaluated: `[bucketBy?, [variant, weight?], ...]`.
    static func evaluate(_ args: [LogicValue], data: LogicValue, version: FractionalVersion) -> LogicValue {
        guard !args.isEmpty else { return .null }
        let (bucketBy, buckets) = operands(args)
        guard !buckets.isEmpty else { return .null }
        var variants: [(LogicValue, UInt64)] = []
        var total: UInt64 = 0
        for bucket in buckets {
            guard case .array(let parts) = bucket, (1...2).contains(parts.count) else { return .null }
            // A variant may be a string, a boolean (variant "true"/"false"), a number or null.
            let variant: LogicValue
            switch parts[0] {
            case .string, .bool, .null: variant = parts[0]
            case .number(let n): variant = .string(LogicValue.format(n))
            default: return .null
            }
            var weight: Double = 1
            if parts.count == 2 {
                switch parts[1] {
                case .null: weight = 1
                case .number(let w) where w == w.rounded() && w.isFinite: weight = w
                default: return .null
                }
            }
            // A negative weight makes the result null, as flagd's Go `fractional.go` refuses it.
            guard weight >= 0 else { return .null }
            let clamped = UInt64(min(weight, 4_294_967_296))
            total += clamped
            variants.append((variant, clamped))
        }
        guard total > 0, total <= 2_147_483_647 else { return .null }
        let flagKey = data["$flagd"]?["flagKey"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
        let targetingKey = data["targetingKey"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
        let bytes: [UInt8]
        switch version {
        case .v1, .v2:
            if let bucketBy {
                guard case .string(let text) = bucketBy else { return .null }
                bytes = Array(text.utf8)
            } else {
                guard !targetingKey.isEmpty else { return .null }
                bytes = Array((flagKey + targetingKey).utf8)
            }
        case .v3:
            if let bucketBy {
                guard let encoded = CBOR.encode(bucketBy) else { return .null }
                bytes = encoded
            } else {
                guard !targetingKey.isEmpty else { return .null }
                bytes = CBOR.encodePair(flagKey, targetingKey)
            }
        }
        let hash = MurmurHash3.x86Hash32(bytes, seed: 0)
        if version == .v1 {
            let signed = Int64(Int32(bitPattern: hash))
            let bucket = Double(abs(signed)) / 2_147_483_647 * 100
            var end = 0.0
            for (variant, weight) in variants {
                end += 100 * Double(weight) / Double(total)
                if bucket < end { return variant }
            }
            return variants.last?.0 ?? .null
        }
        let bucket = (UInt64(hash) * total) >> 32
        var sum: UInt64 = 0
        for (variant, weight) in variants {
            sum += weight
            if bucket < sum { return variant }
        }
        return .null
    }
}

/// Deterministic CBOR (RFC 8949 §4.2) for the values a bucketing key can take.
enum CBOR {
    static func encode(_ value: LogicValue) -> [UInt8]? {
        var out: [UInt8] = []
        guard write(value, into: &out) else { return nil }
        return out
    }

    /// The array `[first, second]` of two strings (the bucketing value without `bucketBy`),
    /// written without building it first: this runs once per evaluation.
    static func encodePair(_ first: String, _ second: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(first.utf8.count + second.utf8.count + 19)
        head(4, 2, into: &out)
        head(3, UInt64(first.utf8.count), into: &out)
        out.append(contentsOf: first.utf8)
        head(3, UInt64(second.utf8.count), into: &out)
        out.append(contentsOf: second.utf8)
        return out
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24..<0x100: out += [type | 24, UInt8(argument)]
        case 0x100..<0x10000: out += [type | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        case 0x10000..<0x1_0000_0000: out.append(type | 26); out += (0..<4).reversed().map { UInt8((argument >> (8 * UInt64($0))) & 0xFF) }
        default: out.append(type | 27); out += (0..<8).reversed().map { UInt8((argument >> (8 * UInt64($0))) & 0xFF) }
        }
    }

    private static func write(_ value: LogicValue, into out: inout [UInt8]) -> Bool {
        switch value {
        case .null: out.append(0xF6)
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .string(let s):
            head(3, UInt64(s.utf8.count), into: &out)
            out.append(contentsOf: s.utf8)
        case .number(let n):
            if n == n.rounded(), abs(n) < 1.8e19 {
                if n >= 0 { head(0, UInt64(n), into: &out) } else { head(1, UInt64(-n - 1), into: &out) }
            } else if n.isNaN {
                out += [0xF9, 0x7E, 0x00]
            } else if Double(Float16(n)) == n {
                let bits = Float16(n).bitPattern
                out += [0xF9, UInt8(bits >> 8), UInt8(bits & 0xFF)]
            } else if Double(Float(n)) == n {
                let bits = Float(n).bitPattern
                out.append(0xFA)
                out += (0..<4).reversed().map { UInt8((bits >> (8 * UInt32($0))) & 0xFF) }
            } else {
                let bits = n.bitPattern
                out.append(0xFB)
                out += (0..<8).reversed().map { UInt8((bits >> (8 * UInt64($0))) & 0xFF) }
            }
        case .array(let items):
            head(4, UInt64(items.count), into: &out)
            for item in items where !write(item, into: &out) { return false }
        case .object(let object):
            var entries: [([UInt8], LogicValue)] = []
            for (key, item) in object {
                guard let encoded = encode(.string(key)) else { return false }
                entries.append((encoded, item))
            }
            entries.sort { $0.0.lexicographicallyPrecedes($1.0) }
            head(5, UInt64(entries.count), into: &out)
            for (key, item) in entries {
                out += key
                if !write(item, into: &out) { return false }
            }
        }
        return true
    }
}
