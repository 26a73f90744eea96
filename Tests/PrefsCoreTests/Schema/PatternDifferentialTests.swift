import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

/// prefs' pattern engine against Node's `RegExp` with the `u` flag (what JSON Schema patterns
/// mean): seeded random patterns over every escape inside and outside classes, quantifiers,
/// anchors, groups and alternation, each tried on many values, all in one `node` process.
/// `PREFS_PATTERN_SEED=N` replays a seed, `PREFS_PATTERN_CASES` sets how many patterns.
@Suite("schema patterns against node", .timeLimit(.minutes(5)))
struct PatternDifferentialTests {
    static let node: String? = ["/usr/bin/node", "/usr/bin/nodejs", "/usr/local/bin/node"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Patterns node accepts that prefs refuses on purpose, by a word of its reason (the
    /// guide lists them): backreferences, lookaround, property escapes, programs too large.
    static let refusedByDesign = ["not supported", "expand beyond", "nested deeper than"]

    @Test(.enabled(if: node != nil, "needs node (Debian nodejs) to compare with ECMA-262's RegExp"))
    func patternsAnswerAsNodeDoes() throws {
        let seed = ProcessInfo.processInfo.environment["PREFS_PATTERN_SEED"].flatMap { UInt64($0) } ?? 20_261_125
        let count = ProcessInfo.processInfo.environment["PREFS_PATTERN_CASES"].flatMap { Int($0) } ?? 4_000
        var random = SplitMix(seed: seed)
        var cases: [(pattern: String, subjects: [String])] = []
        for _ in 0..<count {
            var generator = PatternGenerator(random: random)
            let pattern = generator.pattern()
            var subjects = generator.subjects(count: 24, for: pattern)
            random = generator.random
            subjects.append(contentsOf: ["", "my-app", "my\\app"])
            cases.append((pattern, subjects))
        }
        let answers = try Self.askNode(cases)
        try #require(answers.count == cases.count, "node answered \(answers.count) of \(cases.count) cases")

        var compared = 0
        var skipped = 0
        var bothRefused = 0
        var mismatches: [String] = []
        for ((pattern, subjects), answer) in zip(cases, answers) {
            let schema: Schema
            do {
                schema = try PatternTests.schema(pattern)
            } catch let error as PrefsError {
                if answer == nil {
                    bothRefused += 1
                } else if Self.refusedByDesign.contains(where: error.message.contains) {
                    skipped += 1
                } else {
                    mismatches.append("\(pattern.debugDescription): node accepts it, prefs refuses it: \(error.message)")
                }
                continue
            }
            guard let answer else {
                mismatches.append("\(pattern.debugDescription): node refuses it (SyntaxError), prefs accepts it")
                continue
            }
            for (subject, expected) in zip(subjects, answer) {
                let matched: Bool
                do {
                    try schema.validate(.string(subject), in: .user, forKey: "k")
                    matched = true
                } catch let error as PrefsError where error.message.contains("does not match") {
                    matched = false
                } catch {
                    mismatches.append("\(pattern.debugDescription) on \(subject.debugDescription): \(error)")
                    continue
                }
                compared += 1
                if matched != expected {
                    mismatches.append(
                        "\(pattern.debugDescription) on \(subject.debugDescription): node says \(expected), prefs says \(matched)")
                }
            }
        }
        #expect(mismatches.isEmpty, "seed \(seed): \(mismatches.count) mismatches:\n\(mismatches.prefix(40).joined(separator: "\n"))")
        // The generator must exercise both sides: many valid patterns, many invalid ones.
        #expect(compared > count * 10, "compared \(compared) matches")
        #expect(bothRefused > count / 20, "\(bothRefused) patterns refused by both")
        #expect(skipped < count / 10, "\(skipped) patterns skipped as refused by design")
    }

    /// Runs every case through one node process: nil for a pattern node refuses, else whether
    /// `new RegExp(pattern, "u").test(subject)` for each subject.
    static func askNode(_ cases: [(pattern: String, subjects: [String])]) throws -> [[Bool]?] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-patterns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("cases.json")
        let document = JSONValue.array(
            cases.map { .object([.init("p", .string($0.pattern)), .init("s", .array($0.subjects.map(JSONValue.string)))]) })
        try Data(document.compactText.utf8).write(to: input)
        let script = """
            const cases = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
            const out = cases.map(({ p, s }) => {
              let re;
              try { re = new RegExp(p, "u"); } catch (e) { if (e instanceof SyntaxError) return null; throw e; }
              return s.map((t) => re.test(t));
            });
            process.stdout.write(JSON.stringify(out));
            """
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: node ?? "/usr/bin/node")
        process.arguments = ["-e", script, input.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "node exited \(process.terminationStatus)")
        guard case .array(let items) = try JSONValue(parsingUTF8: Array(data), wrappingLevels: 2) else {
            throw PrefsError(.invalidValue, "node did not print an array")
        }
        return items.map { item in
            guard case .array(let booleans) = item else { return nil }
            return booleans.map { $0 == .bool(true) }
        }
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same cases everywhere.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<bound.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Random patterns over ECMA-262's pattern grammar (valid and invalid under `u`) and values
/// built from the characters they mention.
struct PatternGenerator {
    var random: SplitMix
    private var depth = 0
    private var names = 0

    init(random: SplitMix) { self.random = random }

    /// Characters that stand for themselves in a pattern (outside a class).
    static let literals = ["a", "b", "c", "z", "A", "Z", "0", "5", "9", "_", "-", " ", "é", "🎉", "/", ",", ":", "=", "!", "<", ">", "~"]
    /// Escapes valid under `u`, outside a class.
    static let escapes = [
        "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\b", "\\B", "\\n", "\\r", "\\t", "\\f", "\\v", "\\0", "\\x41", "\\x2d",
        "\\x5C", "\\u0061", "\\u002D", "\\u{1F389}", "\\u{61}", "\\uD83C\\uDF89", "\\cJ", "\\cj", "\\/", "\\\\", "\\.", "\\*",
        "\\+", "\\?", "\\(", "\\)", "\\[", "\\]", "\\{", "\\}", "\\|", "\\^", "\\$",
    ]
    /// Escapes refused under `u` (anywhere, but `\\-` is valid in a class).
    static let badEscapes = [
        "\\-", "\\_", "\\a", "\\e", "\\z", "\\ ", "\\é", "\\,", "\\:", "\\=", "\\!", "\\<", "\\>", "\\~", "\\'", "\\\"",
        "\\c", "\\c1", "\\x4", "\\xZZ", "\\u12", "\\u{}", "\\u{110000}", "\\00", "\\01", "\\8", "\\9", "\\p", "\\i",
    ]
    /// Escapes inside a class (the ones above plus `\b` as backspace and `\-`).
    static let classEscapes = escapes.filter { $0 != "\\B" } + ["\\b", "\\-", "\\-"]
    /// Escapes refused in a class under `u`.
    static let badClassEscapes = badEscapes.filter { $0 != "\\-" } + ["\\B", "\\c_", "\\c0", "\\k", "\\1"]
    /// Things that are errors where an atom is expected under `u`.
    static let lone = ["{", "}", "]", "{1", "{,2}", "{1,2", "*", "+", "?", "{2}", ")"]
    /// What prefs refuses on purpose (node accepts most of it): the test skips these.
    static let byDesign = ["(?=a)", "(?!b)", "(?<=a)", "(?<!b)", "(a)\\1", "\\1", "\\p{L}", "\\P{Lu}", "(?<k>a)\\k<k>", "a{20000}"]
    /// Characters values are built from besides the pattern's own.
    static let alphabet: [Character] = [
        "a", "b", "c", "z", "A", "Z", "0", "5", "9", "_", "-", " ", "\n", "\r", "\t", "\u{8}", "\u{B}", "\u{C}", "\u{0}", "\u{A0}",
        "\u{2028}", "é", "🎉", "/", "\\", ".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "^", "$", ",", "x",
    ]

    mutating func pattern() -> String {
        depth = 0
        names = 0
        var text = alternation()
        if random.chance(25) { text = "^" + text }
        if random.chance(25) { text += "$" }
        return text
    }

    private mutating func alternation() -> String {
        var branches = [sequence()]
        while branches.count < 3 && random.chance(20) { branches.append(sequence()) }
        return branches.joined(separator: "|")
    }

    private mutating func sequence() -> String {
        var parts: [String] = []
        for _ in 0..<random.below(depth == 0 ? 5 : 3) + 1 { parts.append(term()) }
        return parts.joined()
    }

    private mutating func term() -> String {
        var text = atom()
        if random.chance(30) { text += quantifier() }
        return text
    }

    private mutating func quantifier() -> String {
        var text =
            random.chance(90)
            ? random.pick(["*", "+", "?", "{2}", "{0,1}", "{1,3}", "{2,}", "{0}"]) : random.pick(["{3,1}", "{,2}", "{1,", "**", "{"])
        if random.chance(20) { text += "?" }
        return text
    }

    private mutating func atom() -> String {
        switch random.below(100) {
        case 0..<30: return random.pick(Self.literals)
        case 30..<38: return "."
        case 38..<55: return random.chance(85) ? random.pick(Self.escapes) : random.pick(Self.badEscapes)
        case 55..<75: return characterClass()
        case 75..<88 where depth < 3: return group()
        case 88..<93: return random.pick(["^", "$", "\\b", "\\B"])
        case 93..<95: return random.pick(Self.lone)
        case 95..<97: return random.pick(Self.byDesign)
        default: return random.pick(Self.literals)
        }
    }

    private mutating func group() -> String {
        depth += 1
        defer { depth -= 1 }
        let inner = alternation()
        switch random.below(10) {
        case 0..<4: return "(" + inner + ")"
        case 4..<7: return "(?:" + inner + ")"
        case 7..<9:
            names += 1
            let name =
                random.chance(85)
                ? random.pick(["n\(names)", "_x\(names)", "$\(names)", "é\(names)", "Ω\(names)"])
                : random.pick(["1a", "", "a-b", "n1", "a b"])
            return "(?<" + name + ">" + inner + ")"
        default: return random.chance(90) ? "(" + inner + ")" : random.chance(50) ? "(" + inner : inner + ")"
        }
    }

    private mutating func characterClass() -> String {
        var text = random.chance(25) ? "[^" : "["
        for _ in 0..<random.below(4) {
            switch random.below(10) {
            case 0..<4: text += classMember()
            case 4..<6: text += classMember() + "-" + classMember()
            case 6..<8: text += random.chance(85) ? random.pick(Self.classEscapes) : random.pick(Self.badClassEscapes)
            default: text += random.pick(["-", "^", "[", "{", "}", "(", ")", "|", "$", ".", "*", "/", random.chance(20) ? "]" : "a"])
            }
        }
        return text + (random.chance(97) ? "]" : "")
    }

    private mutating func classMember() -> String {
        random.chance(85)
            ? random.pick(["a", "b", "c", "m", "z", "A", "Z", "0", "9", "_", " ", "é", "🎉", "\\x41", "\\u0062", "\\u{1F389}", "\\n", "\\-"])
            : random.pick(["\\d", "\\w", "\\s", "\\D", "\\W", "\\S"])
    }

    /// Values of up to 8 characters from the alphabet and from `pattern`'s own characters.
    mutating func subjects(count: Int, for pattern: String) -> [String] {
        let own = Array(pattern.unicodeScalars.map(Character.init))
        return (0..<count).map { _ in
            var text = ""
            for _ in 0..<random.below(9) {
                text.append(own.isEmpty || random.chance(50) ? random.pick(Self.alphabet) : random.pick(own))
            }
            return text
        }
    }
}
