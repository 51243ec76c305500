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

    /// The name of the SQL function ``registerTextFunctions()`` adds beside the sort key.
    public static let foldFunctionName = "sampledeck_fold"

    /// Adds the sort key and `sampledeck_fold(text)` (``folded(_:)`` of a text, NULL for anything
    /// else) to this connection, both deterministic and direct-only: what a filter's `contains`
    /// and `starts with` and a sort on text need.
    public func registerTextFunctions() throws(DatabaseError) {
        try registerSortKeyFunction()
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY
        let code = sqlite3_create_function_v2(handle, Self.foldFunctionName, 1, flags, nil, foldCallback, nil, nil, nil)
        guard code == SQLITE_OK else { throw DatabaseError(handle: handle, code: code, sql: nil) }
    }

    /// A text with case, diacritics and width folded (`Élan` and `ｅｌａｎ` become `elan`), as
    /// full-text search matches: what `contains` compares.
    public static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// The text a reader sorts by: case and diacritics folded, leading punctuation and spaces
    /// (`¡`, `¿`, quotes, brackets) dropped, so the first letter or digit decides.
    public static func sortKey(_ text: String) -> String {
        let folded = folded(text)
        let start = folded.unicodeScalars.firstIndex { CharacterSet.alphanumerics.contains($0) } ?? folded.unicodeScalars.endIndex
        return String(folded.unicodeScalars[start...])
    }
}

/// The C callback of `sampledeck_sortkey`.
private func sortKeyCallback(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    textFunction(context, count, values, Database.sortKey)
}

/// The C callback of `sampledeck_fold`.
private func foldCallback(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    textFunction(context, count, values, Database.folded)
}

/// A one-argument SQL function from text to text: NULL for any other argument.
private func textFunction(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?,
                          _ transform: (String) -> String) {
    guard count == 1, let value = values?[0], sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else {
        sqlite3_result_null(context)
        return
    }
    let length = Int(sqlite3_value_bytes(value))
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    let result = transform(text)
    sqlite3_result_text(context, result, -1, csqlite_transient())
}
