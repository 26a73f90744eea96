import Foundation
import PrefsCore
import Testing

@Suite("String helpers (Foundation's results)", .timeLimit(.minutes(5)))
struct StringTextTests {
    static let texts = [
        "", " ", "\t", "abc", "  abc  ", "\t a b \t", "\n abc \r\n", "\u{A0}x\u{2003}", "\u{2028}x\u{85}", "\u{FEFF}x", "é ",
        " e\u{301} ", "\r\n", "日本\u{3000}", "a\u{200B}", "\u{1680}\u{180E}x\u{202F}", "\u{205F}x\u{200C}", "\u{B}\u{C}x\u{1C}",
    ]

    @Test(arguments: texts)
    func trimmingIsFoundations(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        #expect(
            text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        #expect(text[...].trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
    }

    @Test func literalSearchAndReplace() {
        let cases: [(String, String)] = [
            ("abc", "b"), ("abc", "d"), ("aaab", "aab"), ("abababc", "ababc"), ("", "a"), ("a", "ab"), ("é日本", "日"),
            ("e\u{301}", "e"), ("\r\n", "\n"), ("x", ""),
        ]
        for (haystack, needle) in cases {
            #expect(haystack.containsLiteral(needle) == (haystack.range(of: needle, options: .literal) != nil), "\(haystack) \(needle)")
        }
        #expect(
            "a%b\r\nc".replacingLiteral("%", with: "%25").replacingLiteral("\r", with: "%0D").replacingLiteral("\n", with: "%0A")
                == "a%25b%0D%0Ac")
        #expect("it's 'x'".replacingLiteral("'", with: "'\\''") == "it'\\''s '\\''x'\\''")
        #expect("a_b__c".replacingLiteral("_", with: "-") == "a-b--c")
        #expect("aaa".replacingLiteral("aa", with: "b") == "ba")
        #expect("abc".replacingLiteral("", with: "x") == "abc")
    }

    @Test func paddingAndPercentDecoding() {
        for (text, length) in [("ab", 4), ("abcd", 2), ("🎉a", 3), ("a🎉", 2), ("→x", 1), ("", 0), ("▏▎", 5)] {
            #expect(text.padded(toUTF16Length: length) == text.padding(toLength: length, withPad: " ", startingAt: 0), "\(text) \(length)")
        }
        for text in ["password", "pass%77ord", "%70assword", "a%2", "a%zz", "%C3%A9", "%FF", "plain", "%", "a+b"] {
            #expect(text.percentDecoded == text.removingPercentEncoding, "\(text)")
        }
        // Query strings: a literal + is a space, an encoded one stays +.
        #expect("a+b%2Bc%20d".percentDecoded(plusIsSpace: true) == "a b+c d")
        #expect("a+b".percentDecoded(plusIsSpace: false) == "a+b")
        #expect("a%zz+".percentDecoded(plusIsSpace: true) == nil)
    }
}
