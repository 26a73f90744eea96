/// "did you mean …?": the nearest of some names to a misspelled one.
enum TypoHint {
    /// The name among `names` nearest to `name` (``UnknownCommand/distance(_:_:)``), when it
    /// is close enough to be a typo: 1 edit for names of up to 3 characters, else 2, or a
    /// quarter of the name's length for long names.
    static func nearest(_ name: String, among names: some Sequence<String>) -> String? {
        let length = name.count
        let limit = length <= 3 ? 1 : max(2, length / 4)
        var best: (name: String, distance: Int)?
        for candidate in names where candidate != name {
            // Names whose lengths differ by more than the limit cannot be within it. A name of
            // ASCII without CR has as many characters as bytes: no need to count them.
            let bytes = candidate.utf8
            let count = bytes.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? bytes.count : candidate.count
            guard abs(count - length) <= limit else { continue }
            let distance = UnknownCommand.distance(candidate, name)
            if distance <= limit && distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// " ; did you mean 'NAME'?" for the nearest name, or "".
    static func suffix(_ name: String, among names: some Sequence<String>) -> String {
        nearest(name, among: names).map { "; did you mean '\($0)'?" } ?? ""
    }
}
