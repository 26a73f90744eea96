import PrefsBase
import PrefsJSON

/// Evaluation steps that several evaluations spend together: a server's request, whose
/// flags share one budget so that no request takes more than its share of the machine.
///
/// Each evaluation still stops at ``JSONLogic/evaluationBudget`` on its own; the shared budget
/// can only lower that. Steps are counted as ``JSONLogic`` counts them (every operator applied,
/// and the size of every string, array or accumulator built).
///
/// ```swift
/// var budget = EvaluationBudget(steps: 2_000_000)
/// var results: [FlagResolution] = []
/// for key in keys { results.append(flags.evaluateAnyType(key, context: ["plan": .string("pro")], budget: &budget)) }
/// if budget.exceeded { /* some evaluation was stopped: answer an error for the request */ }
/// ```
public struct EvaluationBudget: Sendable, Equatable {
    /// The steps the budget started with.
    public let limit: Int
    /// The steps left.
    public internal(set) var remaining: Int
    /// Whether an evaluation was stopped because the budget ran out.
    public internal(set) var exceeded = false

    /// A budget of `steps` (at least 1).
    public init(steps: Int) {
        limit = max(1, steps)
        remaining = limit
    }

    /// No shared limit: each evaluation stops at ``JSONLogic/evaluationBudget`` only.
    public static var unlimited: EvaluationBudget { EvaluationBudget(steps: .max) }

    /// The steps spent so far.
    public var spent: Int { limit - remaining }
}
