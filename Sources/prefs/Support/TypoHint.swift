/// "did you mean …?": the nearest of some names to a misspelled one.
enum TypoHint {
    /// The name among `names` nearest to `name` (``UnknownCommand/distance(_:_:)``), when it
    /// is close enough to be a typo: 1 edit for names of up to 3 characters, else 2, or a
    /// quarter of the name's length for long names.
    static func nearest(_ name: String, among names: some Sequence<String>) -> String? {
        let limit = name.count <= 3 ? 1 : max(2, name.count / 4)
        var best: (name: String, distance: Int)?
        for candidate in names where candidate != name {
            // Names whose lengths differ by more than the limit cannot be within it.
            guard abs(candidate.count - name.count) <= limit else { continue }
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
