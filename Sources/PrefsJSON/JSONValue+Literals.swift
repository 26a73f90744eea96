import FoundationEssentials

// Literals: a `JSONValue` can be written as the JSON it stands for.
//
// ```swift
// let value: JSONValue = ["theme": "dark", "size": 12, "ratio": 0.8, "beta": true, "tags": ["a", "b"], "none": nil]
// ```

extension JSONValue: ExpressibleByStringLiteral {
    /// A string, e.g. `"dark"`.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A number written without fraction, e.g. `12`.
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A number, as Swift writes the `Double` (`0.8` stays `0.8`, `2.0` is `2.0`).
    public init(floatLiteral value: Double) { self = JSONValue(value) ?? .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array, e.g. `[1, "a", nil]`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object with the members in the order written; a name written twice keeps the last
    /// value (in the first one's place).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var members: [Member] = []
        var index: [String: Int] = [:]
        for (key, value) in elements {
            if let at = index[key] {
                members[at].value = value
            } else {
                index[key] = members.count
                members.append(Member(key, value))
            }
        }
        self = .object(members)
    }
}

extension JSONValue {
    /// A number from a `Double`; nil for infinity and NaN, which JSON cannot write.
    ///
    /// ```swift
    /// let quarter = JSONValue(0.25)  // .number("0.25")
    /// ```
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            self = .number(String(Int64(value)) + ".0")
        } else {
            self = .number(String(value))
        }
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value (with `JSONDecoder`, or any decoder whose single-value
    /// container reads null, booleans, numbers, strings, arrays and keyed objects). Numbers
    /// come back as the decoder reads them: integers exactly, others through `Double`.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() {
                self = .null
                return
            }
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? container.decode(Int64.self) {
                self = .number(String(value))
                return
            }
            if let value = try? container.decode(UInt64.self) {
                self = .number(String(value))
                return
            }
            if let value = try? container.decode(Double.self), let number = JSONValue(value) {
                self = number
                return
            }
            if let value = try? container.decode(String.self) {
                self = .string(value)
                return
            }
            if let value = try? container.decode([JSONValue].self) {
                self = .array(value)
                return
            }
        }
        let object = try decoder.container(keyedBy: AnyCodingKey.self)
        var members: [Member] = []
        for key in object.allKeys { members.append(Member(key.stringValue, try object.decode(JSONValue.self, forKey: key))) }
        self = .object(members)
    }

    /// Encodes the value: numbers as integers when they are integers of 64 bits, else as
    /// `Double` (an encoder has no way to write a number's exact text).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if isIntegerNumber, let integer = Int64(text) {
                try container.encode(integer)
            } else if isIntegerNumber, let integer = UInt64(text) {
                try container.encode(integer)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let members):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for member in members { try container.encode(member.value, forKey: AnyCodingKey(member.key)) }
        }
    }
}

/// A coding key made from any string.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
