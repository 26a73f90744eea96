import PrefsBase

/// Parses a JSON Schema `pattern` (the ECMA-262 subset ``PatternProgram`` runs) into a
/// ``PatternNode``, with the syntax of ECMA-262's `u` flag (what JSON Schema patterns mean):
/// literals, `.`, classes, the `\d \w \s` escapes and their negations, control and code
/// point escapes, escaped syntax characters (and `\-` in a class; any other identity escape
/// such as `\_` is refused, as is a lone `{`, `}` or `]`), groups, alternation, greedy and
/// lazy quantifiers, `^`, `$`, `\b` and `\B`. Backreferences, lookaround and Unicode
/// property escapes are refused; groups nest at most ``maximumDepth`` levels (the parser
/// recurses once per level).
struct PatternSyntax {
    /// The deepest group nesting accepted.
    static let maximumDepth = 100
    /// Repetition counts above this are read as this (the program size limit refuses them).
    static let countCeiling = 1_000_000

    private let scalars: [UInt32]
    private var position = 0
    private var depth = 0
    private var groupNames: Set<String> = []

    private init(_ source: String) {
        scalars = source.unicodeScalars.map(\.value)
    }

    /// Parses `source`.
    ///
    /// - Throws: ``PrefsError`` of kind `invalidValue` saying what is wrong or unsupported.
    static func parse(_ source: String) throws -> PatternNode {
        var parser = PatternSyntax(source)
        let node = try parser.alternation()
        if parser.position < parser.scalars.count {
            throw parser.failure("unmatched )")
        }
        return node
    }

    private func failure(_ reason: String) -> PrefsError {
        PrefsError(.invalidValue, reason)
    }

    private var current: UInt32? { position < scalars.count ? scalars[position] : nil }

    private func peek(_ offset: Int) -> UInt32? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    private static func ascii(_ character: Character) -> UInt32 {
        character.unicodeScalars.first?.value ?? 0
    }

    private func isAt(_ character: Character) -> Bool { current == Self.ascii(character) }

    private mutating func alternation() throws -> PatternNode {
        var branches = [try sequence()]
        while isAt("|") {
            position += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence() throws -> PatternNode {
        var parts: [PatternNode] = []
        while let scalar = current, scalar != Self.ascii("|"), scalar != Self.ascii(")") {
            let (atom, quantifiable) = try self.atom()
            if let (minimum, maximum) = try quantifier() {
                guard quantifiable else { throw failure("nothing to repeat") }
                parts.append(.repetition(atom, minimum: minimum, maximum: maximum))
            } else {
                parts.append(atom)
            }
        }
        return parts.count == 1 ? parts[0] : parts.isEmpty ? .empty : .sequence(parts)
    }

    /// A quantifier after an atom, if there is one (with its lazy `?`).
    private mutating func quantifier() throws -> (Int, Int?)? {
        let bounds: (Int, Int?)
        switch current {
        case Self.ascii("*"):
            position += 1
            bounds = (0, nil)
        case Self.ascii("+"):
            position += 1
            bounds = (1, nil)
        case Self.ascii("?"):
            position += 1
            bounds = (0, 1)
        case Self.ascii("{"):
            guard let counted = countedBounds() else { return nil }
            bounds = counted
        default:
            return nil
        }
        if isAt("?") { position += 1 }
        if let next = current, [Self.ascii("*"), Self.ascii("+"), Self.ascii("?")].contains(next) {
            throw failure("nothing to repeat")
        }
        if isAt("{"), countedBounds(consume: false) != nil { throw failure("nothing to repeat") }
        if let maximum = bounds.1, maximum < bounds.0 { throw failure("numbers out of order in {} quantifier") }
        return bounds
    }

    /// `{n}`, `{n,}` or `{n,m}` at the current position; nil (and nothing consumed) when the
    /// brace is not a quantifier, which ECMA-262 (Annex B) reads as a literal `{`.
    private mutating func countedBounds(consume: Bool = true) -> (Int, Int?)? {
        var index = position + 1
        func number() -> Int? {
            var value: Int?
            while index < scalars.count, (0x30...0x39).contains(scalars[index]) {
                value = min(Self.countCeiling, (value ?? 0) * 10 + Int(scalars[index] - 0x30))
                index += 1
            }
            return value
        }
        guard let minimum = number() else { return nil }
        var maximum: Int? = minimum
        if index < scalars.count, scalars[index] == Self.ascii(",") {
            index += 1
            maximum = number()
        }
        guard index < scalars.count, scalars[index] == Self.ascii("}") else { return nil }
        if consume { position = index + 1 }
        return (minimum, maximum)
    }

    /// One atom and whether a quantifier may follow it.
    private mutating func atom() throws -> (PatternNode, Bool) {
        guard let scalar = current else { throw failure("unexpected end") }
        position += 1
        switch scalar {
        case Self.ascii("^"): return (.start, false)
        case Self.ascii("$"): return (.end, false)
        case Self.ascii("."): return (.scalars(.dot), true)
        case Self.ascii("["): return (.scalars(try characterClass()), true)
        case Self.ascii("("): return (try group(), true)
        case Self.ascii("*"), Self.ascii("+"), Self.ascii("?"): throw failure("nothing to repeat")
        case Self.ascii("{"):
            position -= 1
            if countedBounds(consume: false) != nil { throw failure("nothing to repeat") }
            position += 1
            throw failure("a literal { must be escaped as \\{")
        case Self.ascii("}"): throw failure("a literal } must be escaped as \\}")
        case Self.ascii("]"): throw failure("a literal ] must be escaped as \\]")
        case Self.ascii("\\"):
            if isAt("b") || isAt("B") {
                let word = isAt("b")
                position += 1
                return (.wordBoundary(word), false)
            }
            return (.scalars(try escape(inClass: false)), true)
        default: return (.scalars(PatternScalarSet([scalar...scalar])), true)
        }
    }

    private mutating func group() throws -> PatternNode {
        guard depth < Self.maximumDepth else {
            throw failure("groups nested deeper than \(Self.maximumDepth) levels")
        }
        if isAt("?") {
            switch peek(1) {
            case Self.ascii(":"):
                position += 2
            case Self.ascii("="), Self.ascii("!"):
                throw failure("lookahead is not supported")
            case Self.ascii("<") where peek(2) == Self.ascii("=") || peek(2) == Self.ascii("!"):
                throw failure("lookbehind is not supported")
            case Self.ascii("<"):
                position += 2
                try groupName()
            default:
                throw failure("unsupported group (?")
            }
        }
        depth += 1
        let inner = try alternation()
        depth -= 1
        guard isAt(")") else { throw failure("missing )") }
        position += 1
        return inner
    }

    /// `name>` of `(?<name>`: an identifier (ECMA-262's RegExpIdentifierName without its
    /// `\\u` escapes), used once in the pattern.
    private mutating func groupName() throws {
        var name = ""
        while let scalar = current, scalar != Self.ascii(">") {
            guard let character = Unicode.Scalar(scalar) else { throw failure("invalid group name") }
            let allowed =
                name.isEmpty
                ? character.properties.isIDStart || character == "$" || character == "_"
                : character.properties.isIDContinue || character == "$" || scalar == 0x200C || scalar == 0x200D
            guard allowed else { throw failure("invalid group name") }
            name.unicodeScalars.append(character)
            position += 1
        }
        guard isAt(">") else { throw failure("unterminated group name") }
        guard !name.isEmpty else { throw failure("invalid group name") }
        guard groupNames.insert(name).inserted else { throw failure("duplicate group name \(name)") }
        position += 1
    }

    private mutating func characterClass() throws -> PatternScalarSet {
        var negated = false
        if isAt("^") {
            negated = true
            position += 1
        }
        // Members are gathered and sorted once at "]" (inserting each one re-sorted the whole
        // set: a class of 30,000 members took seconds).
        var members: [ClosedRange<UInt32>] = []
        while !isAt("]") {
            guard current != nil else { throw failure("missing ]") }
            let low = try classAtom()
            if isAt("-"), let after = peek(1), after != Self.ascii("]") {
                position += 1
                let high = try classAtom()
                guard let from = low.single, let to = high.single else {
                    // Under the u flag; only the web syntax (Annex B) reads this "-" as a literal.
                    throw failure("a class escape such as \\d cannot bound a range in a character class")
                }
                guard from <= to else { throw failure("range out of order in character class") }
                members.append(from...to)
            } else {
                members += low.set.ranges
            }
        }
        position += 1
        let set = PatternScalarSet(members)
        return negated ? set.inverted : set
    }

    /// One member of a class: a scalar (`single`) or a class escape such as `\d`.
    private mutating func classAtom() throws -> (set: PatternScalarSet, single: UInt32?) {
        guard let scalar = current else { throw failure("missing ]") }
        position += 1
        guard scalar == Self.ascii("\\") else { return (PatternScalarSet([scalar...scalar]), scalar) }
        if isAt("b") {
            position += 1
            return (PatternScalarSet([0x08...0x08]), 0x08)
        }
        let set = try escape(inClass: true)
        if set.ranges.count == 1, let only = set.ranges.first, only.lowerBound == only.upperBound {
            return (set, only.lowerBound)
        }
        return (set, nil)
    }

    /// The escape after a backslash (`\\b` and `\\B` are read by the callers).
    private mutating func escape(inClass: Bool) throws -> PatternScalarSet {
        guard let scalar = current else { throw failure("\\ at end of pattern") }
        position += 1
        func one(_ value: UInt32) -> PatternScalarSet { PatternScalarSet([value...value]) }
        switch scalar {
        case Self.ascii("d"): return .digits
        case Self.ascii("D"): return PatternScalarSet.digits.inverted
        case Self.ascii("w"): return .word
        case Self.ascii("W"): return PatternScalarSet.word.inverted
        case Self.ascii("s"): return .space
        case Self.ascii("S"): return PatternScalarSet.space.inverted
        case Self.ascii("t"): return one(0x09)
        case Self.ascii("n"): return one(0x0A)
        case Self.ascii("v"): return one(0x0B)
        case Self.ascii("f"): return one(0x0C)
        case Self.ascii("r"): return one(0x0D)
        case Self.ascii("0"):
            if let next = current, (0x30...0x39).contains(next) { throw failure("octal escapes are not supported") }
            return one(0)
        case Self.ascii("1")...Self.ascii("9"), Self.ascii("k"):
            if inClass { throw failure("invalid escape \\\(Unicode.Scalar(scalar).map { String($0) } ?? "") in a character class") }
            throw failure("backreferences are not supported")
        case Self.ascii("p"), Self.ascii("P"):
            throw failure("Unicode property escapes (\\p) are not supported")
        case Self.ascii("c"):
            guard let letter = current, (0x41...0x5A).contains(letter) || (0x61...0x7A).contains(letter) else {
                throw failure("\\c needs a letter")
            }
            position += 1
            return one(letter % 32)
        case Self.ascii("x"):
            return one(try hexDigits(count: 2))
        case Self.ascii("u"):
            if isAt("{") {
                position += 1
                var value: UInt32 = 0
                var digits = 0
                while let digit = current, let nibble = Self.hexValue(digit) {
                    value = value * 16 + nibble
                    digits += 1
                    position += 1
                    guard value <= PatternScalarSet.maxScalar else { throw failure("\\u{...} beyond U+10FFFF") }
                }
                guard digits > 0, isAt("}") else { throw failure("malformed \\u{...} escape") }
                position += 1
                return one(value)
            }
            let value = try hexDigits(count: 4)
            if (0xD800...0xDBFF).contains(value), current == Self.ascii("\\"), peek(1) == Self.ascii("u") {
                let saved = position
                position += 2
                if let low = try? hexDigits(count: 4), (0xDC00...0xDFFF).contains(low) {
                    return one(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00))
                }
                position = saved
            }
            return one(value)
        default:
            // Under the u flag only the syntax characters, "/" and (in a class) "-" escape
            // themselves: "\\_" or "\\é" is an error, not a literal.
            guard Self.syntaxCharacters.contains(scalar) || (inClass && scalar == Self.ascii("-")) else {
                throw failure("unknown escape \\\(Unicode.Scalar(scalar).map { String($0) } ?? "")")
            }
            return one(scalar)
        }
    }

    /// The characters a backslash makes literal: ECMA-262's SyntaxCharacter and "/".
    private static let syntaxCharacters = Set("^$\\.*+?()[]{}|/".unicodeScalars.map(\.value))

    private mutating func hexDigits(count: Int) throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let digit = current, let nibble = Self.hexValue(digit) else { throw failure("malformed hexadecimal escape") }
            value = value * 16 + nibble
            position += 1
        }
        return value
    }

    private static func hexValue(_ scalar: UInt32) -> UInt32? {
        switch scalar {
        case 0x30...0x39: return scalar - 0x30
        case 0x41...0x46: return scalar - 0x41 + 10
        case 0x61...0x66: return scalar - 0x61 + 10
        default: return nil
        }
    }
}
