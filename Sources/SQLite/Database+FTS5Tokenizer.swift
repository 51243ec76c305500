import Foundation
internal import CSQLite

/// One of SQLite's FTS5 tokenizers (``Database/fts5Tokenizer(_:arguments:)``), called directly:
/// the tokens a full-text index of this connection's SQLite would store for a text, folded as it
/// folds them (`unicode61 remove_diacritics 2`: `Été` gives `ete`). What a search that reads text
/// outside the index needs to match exactly as the index does.
///
/// Used by one thread at a time, while its database is open.
public final class FTS5Tokenizer {
    private let tokenizer: fts5_tokenizer
    private let instance: OpaquePointer
    /// The connection whose FTS5 module made it (kept open while it lives).
    private let database: Database

    fileprivate init(database: Database, tokenizer: fts5_tokenizer, instance: OpaquePointer) {
        self.database = database
        self.tokenizer = tokenizer
        self.instance = instance
    }

    deinit { tokenizer.xDelete?(instance) }

    /// Calls `body` with each token of the UTF-8 text `text`, in order, as the index stores it
    /// (the bytes are valid only during the call).
    /// - Throws: ``DatabaseError`` when the tokenizer fails (out of memory).
    public func tokenize(_ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(DatabaseError) {
        guard let xTokenize = tokenizer.xTokenize else { throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "the FTS5 tokenizer can't tokenize") }
        let code: Int32 = withoutActuallyEscaping(body) { escapable in
            var callback = escapable
            return withUnsafeMutablePointer(to: &callback) { pointer in
                text.withMemoryRebound(to: CChar.self) { chars in
                    xTokenize(instance, UnsafeMutableRawPointer(pointer), FTS5_TOKENIZE_DOCUMENT, chars.baseAddress, Int32(clamping: chars.count)) {
                        context, _, token, count, _, _ in
                        guard let context else { return SQLITE_OK }
                        let body = context.assumingMemoryBound(to: ((UnsafeBufferPointer<UInt8>) -> Void).self).pointee
                        let bytes = UnsafeRawPointer(token).map { UnsafeBufferPointer(start: $0.assumingMemoryBound(to: UInt8.self), count: Int(max(count, 0))) }
                        body(bytes ?? UnsafeBufferPointer(start: nil, count: 0))
                        return SQLITE_OK
                    }
                }
            }
        }
        guard code == SQLITE_OK else { throw DatabaseError(extendedCode: code, message: "the FTS5 tokenizer failed (\(code))") }
    }

    /// The tokens of `text`, each as its bytes.
    public func tokens(of text: String) throws -> [[UInt8]] {
        var result: [[UInt8]] = []
        var text = text
        try text.withUTF8 { bytes in
            try tokenize(bytes) { result.append(Array($0)) }
        }
        return result
    }
}

/// The type name FTS5 gives its API pointer; `sqlite3_bind_pointer` keeps the pointer it is given.
nonisolated(unsafe) private let fts5APIPointerType: UnsafeMutablePointer<CChar>? = strdup("fts5_api_ptr")

extension Database {
    /// The FTS5 tokenizer `name` (`unicode61`, `ascii`, `porter`, `trigram`) made with
    /// `arguments` as a `tokenize = '…'` option gives them (`["remove_diacritics", "2"]`).
    /// - Throws: ``DatabaseError`` when this SQLite has no FTS5 or no such tokenizer, or it
    ///   refuses the arguments.
    public func fts5Tokenizer(_ name: String, arguments: [String] = []) throws(DatabaseError) -> FTS5Tokenizer {
        let api = try fts5API()
        guard let find = api.pointee.xFindTokenizer else {
            throw DatabaseError(extendedCode: SQLITE_ERROR, message: "this SQLite has no FTS5")
        }
        var userData: UnsafeMutableRawPointer?
        var tokenizer = fts5_tokenizer()
        var code = find(api, name, &userData, &tokenizer)
        guard code == SQLITE_OK, let create = tokenizer.xCreate else {
            throw DatabaseError(extendedCode: code == SQLITE_OK ? SQLITE_ERROR : code, message: "no FTS5 tokenizer \(name)")
        }
        let copies = arguments.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        var instance: OpaquePointer?
        code = pointers.withUnsafeMutableBufferPointer { buffer in
            create(userData, buffer.baseAddress, Int32(buffer.count), &instance)
        }
        guard code == SQLITE_OK, let instance else {
            throw DatabaseError(extendedCode: code == SQLITE_OK ? SQLITE_ERROR : code, message: "FTS5 tokenizer \(name) refused \(arguments)")
        }
        return FTS5Tokenizer(database: self, tokenizer: tokenizer, instance: instance)
    }
}

extension Database {
    /// This connection's FTS5 API (`SELECT fts5(?1)` with the pointer bound, as fts5.h says).
    /// - Throws: ``DatabaseError`` when this SQLite has no FTS5.
    func fts5API() throws(DatabaseError) -> UnsafeMutablePointer<fts5_api> {
        var api: UnsafeMutablePointer<fts5_api>?
        let statement = try prepare("SELECT fts5(?1)")
        withUnsafeMutablePointer(to: &api) { pointer in
            _ = sqlite3_bind_pointer(statement.handle, 1, UnsafeMutableRawPointer(pointer), UnsafePointer(fts5APIPointerType), nil)
        }
        try statement.step()
        statement.reset()
        guard let api else { throw DatabaseError(extendedCode: SQLITE_ERROR, message: "this SQLite has no FTS5") }
        return api
    }
}
