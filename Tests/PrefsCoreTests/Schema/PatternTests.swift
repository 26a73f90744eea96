import PrefsCore
import Testing

/// Schema patterns run on prefs' own engine (ECMA-262 syntax, Unicode scalars, linear time).
@Suite("schema patterns")
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
        ("^a{2,}$", "a", false), ("^a{2,3}$", "aaaa", false), ("^a{0,1}b$", "b", true), ("^a{,2}$", "a{,2}", true),
        ("^x{$", "x{", true), ("^a}$", "a}", true),
        ("^a*?$", "aaa", true), ("^a+?b$", "aab", true), ("^a??b$", "ab", true), ("^a{2,3}?$", "aaa", true), ("^a{2}?$", "a", false),
        ("^.$", "é", true), ("^.$", "e\u{301}", false), ("^.$", "🎉", true), ("^.$", "\n", false), ("^.$", "\r", false),
        ("^.$", "\u{2028}", false), ("^.$", "\u{2029}", false), ("a.c", "a\nc", false),
        ("^[😀-🙏]$", "🙂", true), ("^[😀-🙏]$", "🎉", false),
        ("\\bcat\\b", "a cat here", true), ("\\bcat\\b", "concatenate", false), ("\\Bcat\\B", "concatenate", true),
        ("^(a*)*$", "aaaa", true), ("^(a*)*b$", "aaaa", false), ("^(a|b?)+$", "abab", true),
    ]

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
