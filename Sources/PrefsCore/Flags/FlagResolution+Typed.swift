import FoundationEssentials

/// Why a flag evaluation returned its value (OpenFeature's resolution reasons).
public enum FlagReason: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The flag has one value for everyone (a static value or no targeting).
    case `static` = "STATIC"
    /// The flag's default variant (targeting matched no rule).
    case `default` = "DEFAULT"
    /// Targeting chose the variant.
    case targetingMatch = "TARGETING_MATCH"
    /// The flag is disabled: the caller's default.
    case disabled = "DISABLED"
    /// The evaluation failed: the caller's default (see `FlagResolution/errorKind`).
    case error = "ERROR"

    /// The OpenFeature name, e.g. `TARGETING_MATCH`.
    public var description: String { rawValue }
}

/// Why a flag evaluation failed (OpenFeature's error codes).
public enum FlagErrorCode: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// No flag of that key.
    case flagNotFound = "FLAG_NOT_FOUND"
    /// The flag's definition or the context could not be read.
    case parseError = "PARSE_ERROR"
    /// The variant's value is not of the type asked for.
    case typeMismatch = "TYPE_MISMATCH"
    /// Anything else.
    case general = "GENERAL"

    /// The OpenFeature name, e.g. `FLAG_NOT_FOUND`.
    public var description: String { rawValue }
}

/// Whether a flag is on.
public enum FlagState: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The flag is evaluated.
    case enabled = "ENABLED"
    /// The flag answers the caller's default.
    case disabled = "DISABLED"

    /// The flagd name, e.g. `ENABLED`.
    public var description: String { rawValue }
}

extension FlagResolution {
    /// `reason` as an enum (``FlagReason/error`` for a reason this build does not know).
    ///
    /// ```swift
    /// let result = try stack.flags.evaluate("new-checkout", type: .boolean, default: false)
    /// if result.reasonKind == .error { print(result.errorKind ?? .general, result.errorMessage ?? "") }
    /// ```
    public var reasonKind: FlagReason { FlagReason(rawValue: reason) ?? .error }
    /// `errorCode` as an enum; nil when the evaluation did not fail.
    public var errorKind: FlagErrorCode? { errorCode.map { FlagErrorCode(rawValue: $0) ?? .general } }
}

extension FlagSet.Flag {
    /// `state` as an enum.
    public var flagState: FlagState { FlagState(rawValue: state) ?? .disabled }
}
