/// The SQL objects (tables, indexes, triggers, views) of a store's `sqlite_master`, to compare
/// with those prefs itself makes: a trigger, view, index or table prefs did not make, or one
/// of its own whose SQL was changed, was put there by someone else (a planted trigger can
/// rewrite every later write).
struct SchemaInventory: Equatable {
    /// One object: its type and name.
    struct Object: Hashable, Comparable {
        var type: String
        var name: String

        static func < (lhs: Object, rhs: Object) -> Bool {
            (lhs.type, lhs.name) < (rhs.type, rhs.name)
        }

        /// "trigger kv_user_log_insert", the name JSON-quoted when it is not plain.
        var description: String {
            let plain = name.utf8.allSatisfy {
                $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122)
            }
            return type + " " + (plain && !name.isEmpty ? name : JSONValue.string(name).compactText)
        }
    }

    /// One way a store's objects differ from the expected ones.
    enum Difference: Equatable {
        /// prefs did not make it.
        case unknown(Object)
        /// prefs makes it; it is not there.
        case missing(Object)
        /// prefs makes an object of this name with other SQL.
        case altered(Object)

        var object: Object {
            switch self {
            case .unknown(let object), .missing(let object), .altered(let object): object
            }
        }

        /// One line: what differs.
        var message: String {
            switch self {
            case .unknown(let object) where object.type == "trigger" && object.name.hasPrefix("kv_") && object.name.contains("_log_"):
                "\(object.description) was not made by prefs (a change-log trigger in the store, as schema 4 and older had: "
                    + "prefs logs each write itself, so this one logs it twice; drop it)"
            case .unknown(let object): "\(object.description) was not made by prefs"
            case .missing(let object): "\(object.description) is missing"
            case .altered(let object): "\(object.description) differs from the one prefs makes"
            }
        }
    }

    /// Each object's SQL with white space runs made one space (nil for SQLite's own indexes).
    var objects: [Object: String?]

    /// The objects of `db`'s main schema.
    static func read(_ db: Database) throws -> SchemaInventory {
        var objects: [Object: String?] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master") {
            let type: String = try row[0]
            let name: String = try row[1]
            let sql: String? = row[2]
            objects[Object(type: type, name: name)] = sql.map(normalized)
        }
        return SchemaInventory(objects: objects)
    }

    /// The objects prefs makes in a store of the current schema version holding `domains`:
    /// read from a new store made in memory the normal way.
    static func expected(domains: [Domain]) throws -> SchemaInventory {
        let store = StoreDatabase(location: .inProcess, kind: .main, busyTimeout: 1)
        defer { store.close() }
        return try store.write { db in
            for domain in domains where domain.isPersistent {
                try DomainTable.create(db, domain)
            }
            return try read(db)
        }
    }

    /// How `self` (a store's objects) differs from `expected`, in type and name order.
    /// `namesOnly` (a store of an older version): only objects whose name prefs never uses.
    func differences(from expected: SchemaInventory, namesOnly: Bool = false) -> [Difference] {
        var result: [Difference] = []
        for (object, sql) in objects {
            guard let wanted = expected.objects[object] else {
                result.append(.unknown(object))
                continue
            }
            if !namesOnly && wanted != sql { result.append(.altered(object)) }
        }
        if !namesOnly {
            for object in expected.objects.keys where objects[object] == nil {
                result.append(.missing(object))
            }
        }
        return result.sorted { $0.object < $1.object }
    }

    /// `sql` without comments and double quotes, and without white space except one space
    /// between two word characters (string literals kept as they are): the same object made
    /// by another release's SQL text (`"kv_user"` or `kv_user`, on one line or several, with
    /// or without a comment) compares equal.
    static func normalized(_ sql: String) -> String {
        func isWord(_ character: Character) -> Bool { character == "_" || character.isLetter || character.isNumber }
        let characters = Array(sql)
        var out = ""
        out.reserveCapacity(sql.utf8.count)
        var space = false
        var index = 0
        func append(_ character: Character) {
            if space, let last = out.last, isWord(last), isWord(character) { out.append(" ") }
            space = false
            out.append(character)
        }
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "'" {
                append(character)
                index += 1
                while index < characters.count {
                    out.append(characters[index])
                    index += 1
                    if characters[index - 1] == "'" { break }
                }
            } else if character == "-" && next == "-" {
                while index < characters.count && characters[index] != "\n" { index += 1 }
                space = true
            } else if character == "/" && next == "*" {
                index += 2
                while index < characters.count && !(characters[index - 1] == "*" && characters[index] == "/") { index += 1 }
                index += 1
                space = true
            } else {
                if character.isWhitespace {
                    space = true
                } else if character != "\"" {
                    append(character)
                }
                index += 1
            }
        }
        return out
    }
}
