import Foundation
internal import CSQLite

extension Database {
    /// The name of the FTS5 auxiliary function ``registerSearchRankFunction()`` adds.
    public static let searchRankFunctionName = "sampledeck_rank"

    /// The constants of ``searchRank(frequency:idf:)``: FTS5's `bm25` k1.
    public static let searchRankK1 = 1.2

    /// Adds the FTS5 auxiliary function `sampledeck_rank(<fts table>)` to this connection (once:
    /// calling again does nothing): FTS5's `bm25` without its document-length normalisation
    /// (b = 0), lower is better, as `bm25` is.
    ///
    /// For each phrase of the query, the number of its instances in the row (every column
    /// weighted 1) saturates as bm25's term frequency does, f (k1 + 1) / (f + k1) with k1 = 1.2,
    /// and is weighted by the phrase's IDF as bm25 computes it (log((N − n + 0.5) / (n + 0.5)),
    /// at least 10⁻⁶); a query of one phrase skips the IDF, a positive factor common to every
    /// row that changes no order. The score is minus the sum.
    ///
    /// Why not `bm25` itself: its document length is a look-up of the row's sizes in the
    /// index's `_docsize` table, a statement step per matching row — for a word prefix that 1 %
    /// of a million notes hold, 17 ms of a 22 ms query. This rank reads only the match's
    /// positions, which FTS5 has already loaded (about 0.1 µs a row).
    /// - Throws: ``DatabaseError`` when this SQLite has no FTS5 or refuses the function.
    public func registerSearchRankFunction() throws(DatabaseError) {
        guard !hasSearchRankFunction else { return }
        let api = try fts5API()
        guard let create = api.pointee.xCreateFunction else {
            throw DatabaseError(extendedCode: SQLITE_ERROR, message: "this SQLite's FTS5 can't add functions")
        }
        let code = create(api, Self.searchRankFunctionName, nil, searchRankCallback, nil)
        guard code == SQLITE_OK else { throw DatabaseError(extendedCode: code, message: "FTS5 refused \(Self.searchRankFunctionName)") }
        hasSearchRankFunction = true
    }

    /// One phrase's share of the rank: its saturated frequency times its IDF (1 for a query of
    /// one phrase). The same expression as the SQL function, for a search that computes the
    /// rank outside the index, so that equal scores are equal there too.
    public static func searchRank(frequency: Double, idf: Double) -> Double {
        idf * ((frequency * (searchRankK1 + 1.0)) / (frequency + searchRankK1))
    }

    /// bm25's IDF of a phrase that `hits` of `rows` rows hold (fts5_aux.c: at least 10⁻⁶).
    public static func searchRankIDF(rows: Int64, hits: Int64) -> Double {
        let value = log((Double(rows - hits) + 0.5) / (Double(hits) + 0.5))
        return value <= 0 ? 1e-6 : value
    }
}

/// The C callback of `sampledeck_rank`: per row, the phrase frequencies from the match's
/// instances; per query (cached in the cursor's auxiliary data), the IDF of each phrase when
/// there are several.
private func searchRankCallback(
    _ api: UnsafePointer<Fts5ExtensionApi>?, _ fts: OpaquePointer?, _ context: OpaquePointer?,
    _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?
) {
    guard let api, let fts, let phraseCount = api.pointee.xPhraseCount, let instCount = api.pointee.xInstCount,
          let inst = api.pointee.xInst else {
        sqlite3_result_error(context, "sampledeck_rank: no FTS5 API", -1)
        return
    }
    let phrases = Int(phraseCount(fts))
    guard phrases > 0 else {
        sqlite3_result_double(context, 0)
        return
    }
    var idf: UnsafeMutablePointer<Double>?
    if phrases > 1 {
        let (pointer, code) = searchRankIDFs(api, fts, phrases: phrases)
        guard let pointer else {
            sqlite3_result_error_code(context, code)
            return
        }
        idf = pointer
    }
    var instances: Int32 = 0
    var code = instCount(fts, &instances)
    guard code == SQLITE_OK else {
        sqlite3_result_error_code(context, code)
        return
    }
    let score = withUnsafeTemporaryAllocation(of: Double.self, capacity: phrases) { frequencies -> Double? in
        frequencies.initialize(repeating: 0)
        for index in 0..<instances {
            var phrase: Int32 = 0, column: Int32 = 0, offset: Int32 = 0
            code = inst(fts, index, &phrase, &column, &offset)
            guard code == SQLITE_OK else { return nil }
            if phrase >= 0, Int(phrase) < phrases { frequencies[Int(phrase)] += 1 }
        }
        var sum = 0.0
        for index in 0..<phrases {
            sum += Database.searchRank(frequency: frequencies[index], idf: idf?[index] ?? 1)
        }
        return -1.0 * sum
    }
    guard let score else {
        sqlite3_result_error_code(context, code)
        return
    }
    sqlite3_result_double(context, score)
}

/// The IDF of every phrase of the query, computed at the first row and kept with the cursor;
/// nil and the SQLite error code when FTS5 fails.
private func searchRankIDFs(
    _ api: UnsafePointer<Fts5ExtensionApi>, _ fts: OpaquePointer, phrases: Int
) -> (UnsafeMutablePointer<Double>?, Int32) {
    if let cached = api.pointee.xGetAuxdata?(fts, 0) {
        return (cached.assumingMemoryBound(to: Double.self), SQLITE_OK)
    }
    guard let rowCount = api.pointee.xRowCount, let queryPhrase = api.pointee.xQueryPhrase,
          let setAuxdata = api.pointee.xSetAuxdata else { return (nil, SQLITE_ERROR) }
    var rows: Int64 = 0
    var code = rowCount(fts, &rows)
    guard code == SQLITE_OK else { return (nil, code) }
    let idf = UnsafeMutablePointer<Double>.allocate(capacity: phrases)
    for index in 0..<phrases {
        var hits: Int64 = 0
        code = queryPhrase(fts, Int32(index), &hits) { _, _, userData in
            userData?.assumingMemoryBound(to: Int64.self).pointee += 1
            return SQLITE_OK
        }
        guard code == SQLITE_OK else {
            idf.deallocate()
            return (nil, code)
        }
        idf[index] = Database.searchRankIDF(rows: rows, hits: hits)
    }
    code = setAuxdata(fts, idf) { pointer in pointer?.assumingMemoryBound(to: Double.self).deallocate() }
    // On failure FTS5 has already called the deleter.
    guard code == SQLITE_OK else { return (nil, code) }
    return (idf, SQLITE_OK)
}
