import Foundation
internal import CSQLite

extension Database {
    /// The name of the SQL function ``registerSortKeyFunction()`` adds.
    public static let sortKeyFunctionName = "sampledeck_sortkey"

    /// Adds `sampledeck_sortkey(text)` to this connection: ``sortKey(_:)`` of a text, NULL for
    /// anything else. `ORDER BY sampledeck_sortkey(x), x` sorts as a reader expects rather than by
    /// bytes ("¡Buenos días!" under B, "élan" beside "elan", case ignored). Registered as
    /// deterministic and direct-only: a schema (a view, a trigger, an index of an untrusted
    /// store) can't call it. Registering again replaces it.
    public func registerSortKeyFunction() throws(DatabaseError) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY
        let code = sqlite3_create_function_v2(handle, Self.sortKeyFunctionName, 1, flags, nil, sortKeyCallback, nil, nil, nil)
        guard code == SQLITE_OK else { throw DatabaseError(handle: handle, code: code, sql: nil) }
    }

    /// The text a reader sorts by: case and diacritics folded, leading punctuation and spaces
    /// (`¡`, `¿`, quotes, brackets) dropped, so the first letter or digit decides.
    public static func sortKey(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        let start = folded.unicodeScalars.firstIndex { CharacterSet.alphanumerics.contains($0) } ?? folded.unicodeScalars.endIndex
        return String(folded.unicodeScalars[start...])
    }
}

/// The C callback of `sampledeck_sortkey`.
private func sortKeyCallback(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 1, let value = values?[0], sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else {
        sqlite3_result_null(context)
        return
    }
    let length = Int(sqlite3_value_bytes(value))
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    let key = Database.sortKey(text)
    sqlite3_result_text(context, key, -1, csqlite_transient())
}
