import PrefsCore
import Testing

/// Schema patterns run on prefs' own engine (ECMA-262 syntax, Unicode scalars, linear time).
@Suite("schema patterns", .timeLimit(.minutes(5)))
struct PatternTests {
    /// A schema with one string key `k` whose pattern is `pattern`.
    static func schema(_ pattern: String) throws -> Schema {
        let key = JSONValue.object([.init("type", .string("string")), .init("pattern", .string(pattern))])
        return try Schema(parsing: .object([.init("user", .object([.init("k", key)]))]))
    }

    static func accepts(_ pattern: String, _ text: String) throws -> Bool {
        (try? schema(pattern).validate(.string(text), in: .user, forKey: "k")) != nil
    }

    static let table: [(pattern: String, text: String, matches: Bool)] = [
        ("abc", "xxabcxx", true), ("abc", "ab", false), ("^abc", "xabc", false), ("abc$", "abcx", false),
        ("^abc$", "abc", true), ("^abc$", "abc\n", false), ("^a$", "a\r", false), ("", "anything", true),
        ("^[a-z]+$", "hello", true), ("^[a-z]+$", "Hello", false), ("^[^0-9]+$", "abc", true), ("^[^0-9]+$", "a1", false),
        ("^[a-cx-z]$", "y", true), ("^[a-cx-z]$", "d", false), ("^[-a]$", "-", true), ("^[a-]$", "-", true),
        ("^[\\d.]+$", "1.5", true), ("^[\\w-]+$", "a_b-c", true), ("^[]$", "a", false), ("^[^]$", "\n", true),
        ("^\\d+$", "123", true), ("^\\d$", "٣", false), ("^\\D$", "x", true), ("^\\w+$", "é", false), ("^\\W$", "é", true),
        ("^\\s$", "\u{A0}", true), ("^\\s$", "\u{2028}", true), ("^\\S$", " ", false),
        ("^\\t\\n\\r\\f\\v\\0$", "\t\n\r\u{C}\u{B}\0", true), ("^\\x41\\u0042\\u{1F389}$", "AB🎉", true),
        ("^\\uD83C\\uDF89$", "🎉", true), ("^\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\\\/$", ".*+?()[]{}|^$\\/", true),
        ("^\\cJ$", "\n", true), ("^[\\b]$", "\u{8}", true),
        ("^(ab)+$", "ababab", true), ("^(?:ab)+$", "aba", false), ("^(?<name>a)b$", "ab", true),
        ("^(cat|dog)s?$", "dogs", true), ("^(cat|dog)s?$", "cow", false), ("^a|b$", "ax", true), ("^a|b$", "xb", true),
        ("^(|a)$", "", true), ("^a{3}$", "aaa", true), ("^a{3}$", "aa", false), ("^a{2,}$", "aaaaa", true),
        ("^a{2,}$", "a", false), ("^a{2,3}$", "aaaa", false), ("^a{0,1}b$", "b", true), ("^a\\{,2\\}$", "a{,2}", true),
        ("^x\\{$", "x{", true), ("^a\\}$", "a}", true), ("^[{}\\]]+$", "{]}", true), ("^[[]$", "[", true),
        ("^a*?$", "aaa", true), ("^a+?b$", "aab", true), ("^a??b$", "ab", true), ("^a{2,3}?$", "aaa", true), ("^a{2}?$", "a", false),
        ("^.$", "é", true), ("^.$", "e\u{301}", false), ("^.$", "🎉", true), ("^.$", "\n", false), ("^.$", "\r", false),
        ("^.$", "\u{2028}", false), ("^.$", "\u{2029}", false), ("a.c", "a\nc", false),
        ("^[😀-🙏]$", "🙂", true), ("^[😀-🙏]$", "🎉", false),
        ("\\bcat\\b", "a cat here", true), ("\\bcat\\b", "concatenate", false), ("\\Bcat\\B", "concatenate", true),
        ("^(a*)*$", "aaaa", true), ("^(a*)*b$", "aaaa", false), ("^(a|b?)+$", "abab", true),
    ]

    /// Escapes inside a class mean what they mean under ECMA-262's `u` flag.
    static let classEscapes: [(pattern: String, text: String, matches: Bool)] = [
        ("^[a-z0-9\\-]+$", "my-app", true), ("^[a-z0-9\\-]+$", "my\\app", false), ("^[\\-]$", "-", true),
        ("^[\\-]$", "\\", false), ("^[a\\-z]$", "b", false), ("^[a\\-z]$", "-", true), ("^[\\--0]$", ".", true),
        ("^[\\d]$", "7", true), ("^[\\D]$", "7", false), ("^[\\w]$", "_", true), ("^[\\W]$", "_", false),
        ("^[\\s]$", "\u{3000}", true), ("^[\\S]$", " ", false), ("^[\\b]$", "\u{8}", true), ("^[\\b]$", "b", false),
        ("^[\\n]$", "\n", true), ("^[\\r]$", "\r", true), ("^[\\t]$", "\t", true), ("^[\\f]$", "\u{C}", true),
        ("^[\\v]$", "\u{B}", true), ("^[\\0]$", "\0", true), ("^[\\x41-\\x43]$", "B", true),
        ("^[\\u0041-\\u0043]$", "D", false), ("^[\\u{1F389}]$", "🎉", true), ("^[\\uD83C\\uDF89]$", "🎉", true),
        ("^[\\/]$", "/", true), ("^[\\\\]$", "\\", true), ("^[\\]]$", "]", true), ("^[\\[]$", "[", true),
        ("^[\\^]$", "^", true), ("^[\\.]$", ".", true), ("^[\\.]$", "x", false), ("^[\\cJ]$", "\n", true),
        ("^[\\$\\*\\+\\?\\(\\)\\{\\}\\|]+$", "$*+?(){}|", true), ("^[\\d-]$", "-", true),
    ]

    @Test func classEscapesMeanWhatTheyMeanUnderTheUFlag() throws {
        for row in Self.classEscapes {
            #expect(try Self.accepts(row.pattern, row.text) == row.matches, "\(row.pattern) on \(row.text.debugDescription)")
        }
    }

    /// Under the `u` flag, what ECMA-262's web syntax (Annex B) would read as a literal is an
    /// error: identity escapes of other characters, a lone brace or bracket, a class escape
    /// bounding a range.
    @Test func whatTheUFlagRefusesIsRefused() throws {
        let refused: [(String, String)] = [
            ("\\-", "unknown escape \\-"), ("\\_", "unknown escape \\_"), ("\\ ", "unknown escape"), ("\\é", "unknown escape"),
            ("\\a", "unknown escape"), ("[\\_]", "unknown escape \\_"), ("[\\B]", "unknown escape \\B"), ("[\\1]", "in a character class"),
            ("[\\c1]", "\\c needs a letter"), ("\\c", "\\c needs a letter"), ("a{,2}", "a literal { must be escaped"),
            ("x{", "a literal { must be escaped"), ("a}", "a literal } must be escaped"), ("a]", "a literal ] must be escaped"),
            ("a{1,", "a literal { must be escaped"), ("[\\d-a]", "cannot bound a range"), ("[a-\\w]", "cannot bound a range"),
            ("\\00", "octal"), ("\\u{}", "malformed"), ("\\u{110000}", "beyond U+10FFFF"), ("\\u12", "hexadecimal"),
            ("(?<1a>x)", "invalid group name"), ("(?<>x)", "invalid group name"), ("(?<a-b>x)", "invalid group name"),
            ("(?<n>a)|(?<n>b)", "duplicate group name n"),
        ]
        for (pattern, reason) in refused {
            do {
                _ = try Self.schema(pattern)
                Issue.record("\(pattern) was accepted")
            } catch let error as PrefsError {
                #expect(error.message.hasPrefix("$.user.k.pattern: not a valid regular expression ("), "\(error.message)")
                #expect(error.message.contains(reason), "\(pattern): \(error.message)")
            }
        }
        #expect(try Self.accepts("^(?<$_é1>a)(?<b\u{200C}>b)$", "ab"), "identifier names, as ECMA-262's")
    }

    /// One value check has a step budget: a large program on a large value is refused with
    /// the reason instead of running for seconds; ordinary patterns never meet it.
    @Test func aValueCheckHasAStepBudget() throws {
        let schema = try Self.schema("^(?:.{0,4900})*$")
        for size in [100_000, 300_000] {
            let value = String(repeating: "x", count: size)
            let started = ContinuousClock.now
            do {
                try schema.validate(.string(value), in: .user, forKey: "k")
                Issue.record("a \(size) scalar value was accepted")
            } catch let error as PrefsError {
                #expect(error.kind == .invalidValue)
                #expect(error.message.hasPrefix("user/k: pattern: \"^(?:.{0,4900})*$\" exceeded its step budget"), "\(error.message)")
                #expect(error.message.contains("of a value of \(size) scalars"), "\(error.message)")
            }
            #expect(ContinuousClock.now - started < .seconds(20))
        }
        #expect(try Self.accepts("^(?:.{0,4900})*$", String(repeating: "x", count: 2_000)), "the same pattern on a short value")
        let megabyte = String(repeating: "abcdefghijklmnopqrstuvwxyz", count: 40_330)
        #expect(try Self.accepts("^[a-z]+$", megabyte), "1 MB against an ordinary pattern")
        #expect(try Self.accepts("^(.*)*x$", megabyte + "x"))
        #expect(try Self.accepts("^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$", megabyte + "@example.com"))
    }

    @Test func patternsMatchAsECMAScriptDoes() throws {
        for row in Self.table {
            #expect(try Self.accepts(row.pattern, row.text) == row.matches, "\(row.pattern) on \(row.text.debugDescription)")
        }
    }

    /// Patterns that make a backtracking engine run for minutes answer in one pass.
    @Test func catastrophicPatternsFinish() throws {
        let near = String(repeating: "a", count: 10_000)
        #expect(try !Self.accepts("^(a+)+$", near + "b"))
        #expect(try Self.accepts("^(a+)+$", near))
        #expect(try !Self.accepts("(a|aa)*b", near))
        #expect(try Self.accepts("(a|aa)*b", near + "b"))
        let slug = String(repeating: "abcdefghij", count: 1_000)
        #expect(try !Self.accepts("^([a-z0-9]+-?)*[a-z0-9]+$", slug + "!"))
        #expect(try Self.accepts("^([a-z0-9]+-?)*[a-z0-9]+$", slug + "-x"))
        #expect(try Self.accepts("^(.*)*x$", String(repeating: "y", count: 1_000_000) + "x"), "1 MB: no recursion on the value")
    }

    @Test func unsupportedPatternsAreRefused() throws {
        let deep = String(repeating: "(", count: 1_000) + "a" + String(repeating: ")", count: 1_000)
        let refused: [(String, String)] = [
            ("(a)\\1", "backreferences are not supported"), ("(?=a)", "lookahead is not supported"),
            ("(?!a)", "lookahead is not supported"), ("(?<=a)b", "lookbehind is not supported"),
            ("a{1000}{1000}", "nothing to repeat"), ("(a{1000}){1000}", "expand beyond 10000 instructions"),
            ("(?:a{100}){101}", "expand beyond 10000 instructions"), (deep, "nested deeper than 100 levels"),
            ("(", "missing )"), ("a)", "unmatched )"), ("[a", "missing ]"), ("*a", "nothing to repeat"), ("a**", "nothing to repeat"),
            ("[z-a]", "range out of order"), ("a{3,1}", "numbers out of order"), ("\\p{L}", "property escapes"), ("\\q", "unknown escape"),
            ("\\", "at end of pattern"), ("\\x4", "hexadecimal"),
        ]
        for (pattern, reason) in refused {
            #expect(throws: PrefsError.self, "\(pattern)") { try Self.schema(pattern) }
            do {
                _ = try Self.schema(pattern)
            } catch let error as PrefsError {
                #expect(error.message.hasPrefix("$.user.k.pattern: not a valid regular expression ("), "\(error.message)")
                #expect(error.message.contains(reason), "\(pattern): \(error.message)")
            }
        }
        // An empty group repeated counts too: this compiled for minutes before it was refused.
        #expect(throws: PrefsError.self) { try Self.schema("(?:(?:){1000000}){1000000}") }
        // A class of 30,000 members is sorted once, not once per member.
        let members = (0..<30_000).map { String(UnicodeScalar(0x10000 + 2 * $0)!) }.joined()
        #expect(try Self.accepts("^[" + members + "]$", String(UnicodeScalar(0x10000 + 2 * 29_999)!)))
        #expect(try !Self.accepts("^[" + members + "]$", String(UnicodeScalar(0x10001)!)))
        let nested = String(repeating: "(", count: 100) + "a" + String(repeating: ")", count: 100)
        #expect(try Self.accepts(nested, "a"), "100 levels are accepted")
        #expect(try Self.accepts("^a{5000}$", String(repeating: "a", count: 5_000)))
    }
}
