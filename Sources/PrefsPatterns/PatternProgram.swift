import PrefsBase

/// A schema pattern compiled to a Thompson NFA and run by simulating every thread at once:
/// time O(length of the value × program size), memory O(program size), no backtracking and
/// no recursion on the value (a counted repetition is expanded, so the program size is capped
/// at ``maximumSize`` instructions). One match does at most ``stepBudget(scalars:)`` steps: the
/// product of the two sizes is bounded too (`^(?:.{0,4900})*$` on 100 KB is 10⁹ steps, seconds).
package struct PatternProgram: Sendable {
    /// The largest program accepted, in instructions.
    static let maximumSize = 10_000
    /// The steps any match may take, whatever the value's length.
    static let baseSteps = 10_000_000
    /// The steps a match may take per scalar of the value, on top of ``baseSteps``.
    static let stepsPerScalar = 32

    /// The most steps one ``matches(_:)`` of a value of `scalars` scalars may take: a thread
    /// visited at one position of the value counts one. An ordinary pattern keeps a few
    /// threads alive (`^[a-z]+$` takes about 5 steps per scalar) and is never refused, at any
    /// length; a large program can keep thousands alive at every scalar
    /// (`^(?:.{0,4900})*$`: 10,000).
    static func stepBudget(scalars: Int) -> Int {
        baseSteps + stepsPerScalar * scalars
    }

    private enum Instruction: Sendable {
        /// Consume a scalar in the set at this index of `sets`.
        case scalar(Int)
        /// Continue at both targets.
        case split(Int, Int)
        /// Continue at the target.
        case jump(Int)
        case assertStart
        case assertEnd
        case assertWordBoundary(Bool)
        case match
    }

    private var instructions: [Instruction] = []
    private var sets: [PatternScalarSet] = []
    /// Whether every match starts at the start of the value (a leading `^`).
    private var anchored = false

    /// Parses and compiles `source`.
    ///
    /// - Throws: ``PrefsError`` of kind `invalidValue` saying what is wrong, unsupported, or
    ///   too large.
    package init(_ source: String) throws {
        let node = try PatternSyntax.parse(source)
        guard Self.size(of: node) < Self.maximumSize else {
            throw PrefsError(
                .invalidValue, "its repetitions expand beyond \(Self.maximumSize) instructions")
        }
        emit(node)
        instructions.append(.match)
        if case .start = node {
            anchored = true
        } else if case .sequence(let parts) = node, case .start = parts.first {
            anchored = true
        }
    }

    /// The number of instructions `node` compiles to, or more than ``maximumSize``.
    private static func size(of node: PatternNode) -> Int {
        let ceiling = maximumSize + 1
        func bounded(_ value: (partialValue: Int, overflow: Bool)) -> Int {
            value.overflow ? ceiling : min(ceiling, value.partialValue)
        }
        switch node {
        case .empty: return 0
        case .scalars, .start, .end, .wordBoundary: return 1
        case .sequence(let parts):
            return parts.reduce(0) { min(ceiling, $0 + size(of: $1)) }
        case .alternation(let branches):
            return branches.reduce(2 * (branches.count - 1)) { min(ceiling, $0 + size(of: $1)) }
        case .repetition(let inner, let minimum, let maximum):
            // At least 1 per repeat: compiling loops once per repeat even for an empty group
            // (`(?:(?:){1000000}){1000000}` ran for minutes).
            let one = max(1, size(of: inner))
            let required = bounded(one.multipliedReportingOverflow(by: minimum))
            guard let maximum else { return min(ceiling, required + one + 2) }
            let optional = bounded((one + 1).multipliedReportingOverflow(by: maximum - minimum))
            return min(ceiling, required + optional)
        }
    }

    private mutating func emit(_ node: PatternNode) {
        switch node {
        case .empty: break
        case .scalars(let set):
            if let index = sets.firstIndex(of: set) {
                instructions.append(.scalar(index))
            } else {
                sets.append(set)
                instructions.append(.scalar(sets.count - 1))
            }
        case .start: instructions.append(.assertStart)
        case .end: instructions.append(.assertEnd)
        case .wordBoundary(let isBoundary): instructions.append(.assertWordBoundary(isBoundary))
        case .sequence(let parts):
            for part in parts { emit(part) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = instructions.count
                    instructions.append(.split(split + 1, 0))
                    emit(branch)
                    jumps.append(instructions.count)
                    instructions.append(.jump(0))
                    instructions[split] = .split(split + 1, instructions.count)
                } else {
                    emit(branch)
                }
            }
            for jump in jumps { instructions[jump] = .jump(instructions.count) }
        case .repetition(let inner, let minimum, let maximum):
            for _ in 0..<minimum { emit(inner) }
            if let maximum {
                var splits: [Int] = []
                for _ in minimum..<maximum {
                    splits.append(instructions.count)
                    instructions.append(.split(0, 0))
                    emit(inner)
                }
                for split in splits { instructions[split] = .split(split + 1, instructions.count) }
            } else {
                let loop = instructions.count
                instructions.append(.split(0, 0))
                emit(inner)
                instructions.append(.jump(loop))
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        }
    }

    /// Whether the pattern matches anywhere in `text` (anchors are the pattern's own).
    ///
    /// - Throws: ``PrefsError`` of kind `invalidValue` when the answer needs more than
    ///   ``stepBudget(scalars:)`` steps.
    package func matches(_ text: String) throws -> Bool {
        let stepBudget = Self.stepBudget(scalars: text.unicodeScalars.count)
        let count = instructions.count
        var current: [Int] = []
        var next: [Int] = []
        var seen = [Int](repeating: -1, count: count)
        var stack: [Int] = []
        current.reserveCapacity(count)
        next.reserveCapacity(count)
        var step = 0
        var iterator = text.unicodeScalars.makeIterator()
        var previous: UInt32?
        var scalar = iterator.next()?.value
        var seeds: [Int] = [0]
        var steps = 0

        func isWord(_ value: UInt32?) -> Bool { value.map(PatternScalarSet.word.contains) ?? false }

        while true {
            // The ε-closure of the seeds at this position (an explicit stack, no recursion).
            current.removeAll(keepingCapacity: true)
            stack.removeAll(keepingCapacity: true)
            stack.append(contentsOf: seeds.reversed())
            while let pc = stack.popLast() {
                steps &+= 1
                guard seen[pc] != step else { continue }
                seen[pc] = step
                switch instructions[pc] {
                case .scalar: current.append(pc)
                case .match: return true
                case .jump(let target): stack.append(target)
                case .split(let first, let second):
                    stack.append(second)
                    stack.append(first)
                case .assertStart:
                    if previous == nil { stack.append(pc + 1) }
                case .assertEnd:
                    if scalar == nil { stack.append(pc + 1) }
                case .assertWordBoundary(let isBoundary):
                    if (isWord(previous) != isWord(scalar)) == isBoundary { stack.append(pc + 1) }
                }
            }
            guard let value = scalar else { return false }
            steps &+= current.count
            if steps > stepBudget {
                throw PrefsError(
                    .invalidValue,
                    "exceeded its step budget (\(Self.baseSteps) + \(Self.stepsPerScalar) per scalar: \(stepBudget) steps) at scalar \(step + 1)"
                )
            }
            next.removeAll(keepingCapacity: true)
            for pc in current {
                if case .scalar(let index) = instructions[pc], sets[index].contains(value) {
                    next.append(pc + 1)
                }
            }
            if !anchored { next.append(0) }
            if next.isEmpty { return false }
            swap(&seeds, &next)
            step += 1
            previous = value
            scalar = iterator.next()?.value
        }
    }
}
