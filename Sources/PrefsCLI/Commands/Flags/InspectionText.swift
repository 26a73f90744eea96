import ArgumentParser
import FoundationEssentials
import Glibc
import PrefsCore

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

extension FlagTraceNode {
    static func shortenedForLine(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}

extension LogicValue {
    static func formatted(_ percent: Double) -> String {
        let rounded = (percent * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
