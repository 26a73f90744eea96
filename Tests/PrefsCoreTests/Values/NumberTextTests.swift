import Foundation
import PrefsCore
import Testing

@Suite("Number formatting (printf's results)", .timeLimit(.minutes(5)))
struct NumberTextTests {
    static let values: [Double] = [
        0, -0.0, 1, -1, 0.5, 1.5, 2.5, -2.5, 0.05, 0.15, 0.25, 0.35, 0.45, 1.25, 1.35, 9.95, 99.95, 0.04, -0.04, 123.456,
        1e15, 1e16 + 2, 9_007_199_254_740_992, 1.8446744073709552e19, 1e20, 1e21 - 65_536, 1e22, 1.7976931348623157e308,
        .leastNonzeroMagnitude, 2.2250738585072014e-308, .pi, -.pi, 1.0 / 3, 2.0 / 3, 0.1, 0.2, 0.3, 4.35, 1e-7, 12_345.675,
    ]

    @Test(arguments: values)
    func fixedIsPrintf(value: Double) {
        for digits in 0...3 {
            #expect(NumberText.fixed(value, fractionDigits: digits) == String(format: "%.\(digits)f", value), "\(value) \(digits)")
        }
    }

    @Test func randomValuesArePrintf() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let value = Double(bitPattern: generator.next() & ~(0x7FF << 52) | (UInt64.random(in: 0x3C0...0x440) << 52))
            let digits = Int.random(in: 0...2)
            #expect(NumberText.fixed(value, fractionDigits: digits) == String(format: "%.\(digits)f", value), "\(value) \(digits)")
        }
    }

    @Test func nonFiniteAndHex() {
        #expect(NumberText.fixed(.infinity, fractionDigits: 1) == "inf")
        #expect(NumberText.fixed(-.infinity, fractionDigits: 0) == "-inf")
        #expect(NumberText.fixed(.nan, fractionDigits: 0) == "nan")
        for value in [0, 7, 15, 16, 0x7F, 0x9F, 0xFF, 0x1234] {
            #expect(NumberText.hex(value, width: 2) == String(format: "%02x", value))
        }
        #expect(NumberText.hex(UInt8(10), width: 2) == "0a")
    }
}
