import PrefsBase

/// A parsed schema pattern (``PatternSyntax``), compiled by ``PatternProgram``.
indirect enum PatternNode: Sendable, Equatable {
    /// Matches the empty text.
    case empty
    /// One scalar from a set (a literal is a set of one).
    case scalars(PatternScalarSet)
    /// `^`: the start of the value.
    case start
    /// `$`: the end of the value (not before a final newline).
    case end
    /// `\b` (true) or `\B` (false).
    case wordBoundary(Bool)
    /// Each part in turn.
    case sequence([PatternNode])
    /// Any one of the branches.
    case alternation([PatternNode])
    /// The node `minimum` to `maximum` times (nil: no upper bound); lazy forms are the same
    /// for a match / no match answer.
    case repetition(PatternNode, minimum: Int, maximum: Int?)
}
