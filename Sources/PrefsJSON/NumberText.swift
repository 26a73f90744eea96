import PrefsBase

/// Numbers as C's `printf` writes them, without Foundation's `String(format:)`: `%.Nf` of a
/// `Double` (exactly: the binary value's decimal expansion rounded half to even, as glibc
/// does) and `%0Nx` of an integer.
///
/// ```swift
/// let two = NumberText.fixed(2.5, fractionDigits: 0)    // "2"   (printf "%.0f")
/// let one = NumberText.fixed(1.25, fractionDigits: 1)   // "1.2" (printf "%.1f")
/// let hex = NumberText.hex(7, width: 2)                 // "07"  (printf "%02x")
/// ```
package enum NumberText {
    /// `printf("%.Nf", value)` with N = `fractionDigits`: `nan`, `inf`, `-inf` for the
    /// non-finite values, a `-` on every negative value (also one that rounds to zero, and -0).
    package static func fixed(_ value: Double, fractionDigits: Int) -> String {
        let digits = max(fractionDigits, 0)
        let sign = value.sign == .minus ? "-" : ""
        if value.isNaN { return sign + "nan" }
        if value.isInfinite { return sign + "inf" }
        // value = significand × 2^exponent, exactly.
        let raw = value.magnitude
        var significand = raw.significandBitPattern
        var exponent = Int(raw.exponentBitPattern)
        if exponent == 0 {
            exponent = -1074
        } else {
            significand |= 1 << 52
            exponent -= 1075
        }
        // scaled = value × 10^digits, rounded half to even.
        var scaled = Magnitude(significand)
        for _ in 0..<digits { scaled.multiply(by: 10) }
        if exponent >= 0 {
            scaled.shiftLeft(exponent)
        } else {
            let dropped = scaled.shiftRight(-exponent)
            if dropped == .aboveHalf || (dropped == .half && scaled.isOdd) { scaled.addOne() }
        }
        var text = scaled.decimalText()
        if digits > 0 {
            if text.count <= digits { text = String(repeating: "0", count: digits + 1 - text.count) + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
        }
        return sign + text
    }

    /// `printf("%0Nx", value)` with N = `width`: lowercase hexadecimal, zero-padded to `width`.
    package static func hex(_ value: some BinaryInteger, width: Int) -> String {
        let text = String(value, radix: 16)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// What a right shift dropped, against half of its last unit.
    enum Remainder { case zero, belowHalf, half, aboveHalf }

    /// An unsigned integer of any size: 32-bit limbs, least significant first.
    struct Magnitude {
        var limbs: [UInt32]

        package init(_ value: UInt64) {
            limbs = [UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32)]
            trim()
        }

        var isOdd: Bool { (limbs.first ?? 0) & 1 == 1 }

        mutating func trim() {
            while limbs.last == 0 { limbs.removeLast() }
        }

        mutating func multiply(by factor: UInt32) {
            var carry: UInt64 = 0
            for index in limbs.indices {
                let product = UInt64(limbs[index]) * UInt64(factor) + carry
                limbs[index] = UInt32(truncatingIfNeeded: product)
                carry = product >> 32
            }
            if carry > 0 { limbs.append(UInt32(carry)) }
        }

        mutating func addOne() {
            for index in limbs.indices {
                limbs[index] &+= 1
                if limbs[index] != 0 { return }
            }
            limbs.append(1)
        }

        mutating func shiftLeft(_ count: Int) {
            guard !limbs.isEmpty, count > 0 else { return }
            let whole = count / 32
            let bits = count % 32
            if bits > 0 {
                var carry: UInt32 = 0
                for index in limbs.indices {
                    let limb = limbs[index]
                    limbs[index] = (limb << UInt32(bits)) | carry
                    carry = limb >> UInt32(32 - bits)
                }
                if carry > 0 { limbs.append(carry) }
            }
            limbs.insert(contentsOf: repeatElement(0, count: whole), at: 0)
        }

        /// Shifts right by `count` bits; what was shifted out, compared with half a unit.
        mutating func shiftRight(_ count: Int) -> Remainder {
            // The dropped bits: the highest one is the half; any other set bit is above it.
            var half = false
            var below = false
            for bit in 0..<count {
                let limb = bit / 32
                guard limb < limbs.count else { break }
                if limbs[limb] >> UInt32(bit % 32) & 1 == 1 {
                    if bit == count - 1 { half = true } else { below = true }
                }
            }
            let whole = count / 32
            let bits = count % 32
            if whole >= limbs.count {
                limbs = []
            } else {
                limbs.removeFirst(whole)
                if bits > 0 {
                    for index in limbs.indices {
                        let next = index + 1 < limbs.count ? limbs[index + 1] : 0
                        limbs[index] = (limbs[index] >> UInt32(bits)) | (next << UInt32(32 - bits))
                    }
                }
                trim()
            }
            switch (half, below) {
            case (false, false): return .zero
            case (false, true): return .belowHalf
            case (true, false): return .half
            case (true, true): return .aboveHalf
            }
        }

        /// The decimal digits (`0` for zero).
        func decimalText() -> String {
            var rest = limbs
            var chunks: [UInt32] = []
            while !rest.isEmpty {
                var remainder: UInt64 = 0
                for index in rest.indices.reversed() {
                    let current = (remainder << 32) | UInt64(rest[index])
                    rest[index] = UInt32(current / 1_000_000_000)
                    remainder = current % 1_000_000_000
                }
                chunks.append(UInt32(remainder))
                while rest.last == 0 { rest.removeLast() }
            }
            guard let top = chunks.last else { return "0" }
            var text = String(top)
            for chunk in chunks.dropLast().reversed() {
                let part = String(chunk)
                text += String(repeating: "0", count: 9 - part.count) + part
            }
            return text
        }
    }
}
