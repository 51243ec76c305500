internal import CSQLite

extension Statement {
    /// Calls `body` with the UTF-8 bytes of text column `index` of the current row, without
    /// making a `String` of them (for callers that split a column into several strings).
    ///
    /// The bytes are SQLite's and valid only during the call; they are not checked to be
    /// valid UTF-8. A NULL column gives an empty buffer.
    public func withUTF8<T>(at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        guard let text = sqlite3_column_text(handle, index) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index))))
    }
}
