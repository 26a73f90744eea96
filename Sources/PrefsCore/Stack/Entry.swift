/// One stored key with its value and metadata.
///
/// ```swift
/// for entry in try stack.entries(in: .user) {
///     print(entry.key, entry.json)
/// }
/// ```
public struct Entry: Sendable, Equatable {
    /// The entry's domain.
    public var domain: Domain
    /// The key.
    public var key: String
    /// The value as compact JSON text.
    public var json: String
    /// The per-key version: 1 on first write, increased by every write.
    public var version: Int64
    /// When the value was last written, in milliseconds since 1970.
    public var updatedAt: Int64
    /// When the value expires, in milliseconds since 1970; nil when it never does.
    public var expiresAt: Int64?

    /// Creates an entry.
    public init(domain: Domain, key: String, json: String, version: Int64, updatedAt: Int64, expiresAt: Int64? = nil) {
        self.domain = domain
        self.key = key
        self.json = json
        self.version = version
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
    }

    /// The value, parsed.
    ///
    /// - Throws: `PrefsError` of kind `PrefsError/Kind/storeUnreadable` when the stored
    ///   text is not valid JSON (the store was edited by hand).
    public func value() throws -> JSONValue {
        do {
            return try JSONValue(parsing: json)
        } catch {
            throw corrupt
        }
    }

    /// The value's compact JSON text, checked: what output that copies stored text (`list
    /// --json`, `export`) writes, so that a row edited by hand (`1,"admin":true`) can never
    /// become more members of the document. Linear in the text's length, and without a tree
    /// for text that is already compact (as the store writes it).
    ///
    /// - Throws: `PrefsError` of kind `PrefsError/Kind/storeUnreadable` when the stored
    ///   text is not valid JSON.
    public func checkedJSON() throws -> String {
        do {
            return try CompactJSON(parsing: json).text
        } catch {
            throw corrupt
        }
    }

    /// Appends a stored value given as its bytes (a row of `domain` and `key`) as
    /// ``checkedJSON()`` gives it: the bytes themselves when they are already compact JSON,
    /// as the store writes them, so an export makes no `String` per value.
    ///
    /// - Throws: `PrefsError` of kind `PrefsError/Kind/storeUnreadable` when the stored
    ///   text is not valid JSON.
    package static func appendCheckedJSON(
        _ json: UnsafeBufferPointer<UInt8>, domain: Domain, key: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]
    ) throws {
        if JSONParser.isCompact(json) {
            out.append(contentsOf: json)
            return
        }
        let entry = Entry(
            domain: domain, key: String(decoding: key, as: UTF8.self), json: String(decoding: json, as: UTF8.self), version: 0,
            updatedAt: 0)
        out.append(contentsOf: try entry.checkedJSON().utf8)
    }

    private var corrupt: PrefsError {
        PrefsError(.storeUnreadable, "stored value of \(domain.name)/\(key) is corrupt: not valid JSON")
    }
}
