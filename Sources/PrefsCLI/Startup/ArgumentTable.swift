import ArgumentParser

/// The arguments of one command as a table: what `scripts/generate` wrote from the parser's
/// own description of the command (`--experimental-dump-help`) and the names of the
/// command's properties, in `CommandTable.generated.swift`.
///
/// ``TableParser`` reads a command line with this table and builds the command by setting its
/// properties, without the argument parser's reflection (see ``TableParser``).
struct CommandSpec: Sendable {
    /// The command's names after `prefs`, e.g. `["flag", "eval"]`; empty for the root.
    let path: [String]
    /// The command's arguments in the parser's order; the index is the slot of its values.
    let arguments: [ArgumentSpec]
    /// Builds the command from the values (property by property), validated; throws
    /// ``TableParser/Declined`` when a value does not convert.
    let make: @Sendable (ParsedValues) throws -> any ParsableCommand

    init(path: [String], arguments: [ArgumentSpec], make: @escaping @Sendable (ParsedValues) throws -> any ParsableCommand) {
        self.path = path
        self.arguments = arguments
        self.make = make
    }

    /// The slot of the option or flag called `name` (`--store`, `-o`).
    func slot(named name: Substring) -> Int? {
        arguments.firstIndex { $0.names.contains { $0 == name } }
    }
}

/// One argument of a ``CommandSpec``.
struct ArgumentSpec: Sendable {
    enum Kind: Sendable {
        /// A flag: present or not.
        case flag
        /// An option that takes one value.
        case option
        /// An option that may be repeated; every value is kept.
        case options
        /// A positional argument: one value.
        case positional
        /// A positional argument that may be left out.
        case optionalPositional
        /// A positional argument that takes every value left (an array).
        case positionals
        /// `parsing: .allUnrecognized`: the values no other argument took.
        case unrecognized
        /// `parsing: .postTerminator`: the values after `--`.
        case postTerminator
    }

    let kind: Kind
    /// The option's or flag's names (`--store`, `-o`); empty for a positional argument.
    let names: [String]
    /// `parsing: .unconditional`: the next argument is the value even if it starts with a dash.
    let unconditional: Bool

    init(_ kind: Kind, _ names: [String] = [], unconditional: Bool = false) {
        self.kind = kind
        self.names = names
        self.unconditional = unconditional
    }
}

/// The values of a command line by slot (``CommandSpec/arguments``), converted on request
/// to the type of the property they set.
struct ParsedValues {
    var slots: [[String]]

    /// A flag.
    func flag(_ slot: Int) -> Bool {
        !slots[slot].isEmpty
    }

    /// A value the command requires (the table has checked it was given).
    func required<Value: ExpressibleByArgument>(_ slot: Int) throws -> Value {
        guard let text = slots[slot].first else { throw TableParser.Declined() }
        return try convert(text)
    }

    /// A value with a default: `defaultText` is the parser's text of the default.
    func required<Value: ExpressibleByArgument>(_ slot: Int, default defaultText: String) throws -> Value {
        try convert(slots[slot].first ?? defaultText)
    }

    /// An optional value.
    func optional<Value: ExpressibleByArgument>(_ slot: Int) throws -> Value? {
        guard let text = slots[slot].first else { return nil }
        return try convert(text) as Value
    }

    /// Every value of a repeated option or of a positional array, in order.
    func array<Value: ExpressibleByArgument>(_ slot: Int) throws -> [Value] {
        try slots[slot].map { try convert($0) }
    }

    private func convert<Value: ExpressibleByArgument>(_ text: String) throws -> Value {
        guard let value = Value(argument: text) else { throw TableParser.Declined() }
        return value
    }
}

/// Builds one option group (e.g. ``GlobalOptions``) of a command in the generated table.
func makeGroup<Group: ParsableArguments>(_ fill: (inout Group) throws -> Void) throws -> Group {
    var group = Group()
    try fill(&group)
    try group.validate()
    return group
}
