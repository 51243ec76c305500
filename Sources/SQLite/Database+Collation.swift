import Foundation
internal import CSQLite

extension Database {
    /// Adds a collation named `name` to this connection that orders text by its Unicode case
    /// folding, scalar by scalar (ASCII ignores case; `ß` folds to `ss`, final sigma to sigma):
    /// the order of the `unicase` collation current Anki declares on the names of its schema-18
    /// tables (a schema naming a collation can't be created or queried without it).
    /// Registering again replaces it.
    public func registerCaseFoldingCollation(named name: String) throws(DatabaseError) {
        let code = sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, nil, caseFoldingCompare, nil)
        guard code == SQLITE_OK else { throw DatabaseError(handle: handle, code: code, sql: nil) }
    }

    /// The order ``registerCaseFoldingCollation(named:)`` gives: negative, zero or positive as
    /// `a` sorts before, with or after `b`.
    public static func caseFoldingOrder(_ a: String, _ b: String) -> Int {
        // Plain ASCII (nearly every name): bytes with A-Z lowered.
        if a.utf8.allSatisfy({ $0 < 0x80 }) && b.utf8.allSatisfy({ $0 < 0x80 }) {
            for (x, y) in zip(a.utf8, b.utf8) {
                let lx = x >= 0x41 && x <= 0x5A ? x | 0x20 : x, ly = y >= 0x41 && y <= 0x5A ? y | 0x20 : y
                if lx != ly { return lx < ly ? -1 : 1 }
            }
            return a.utf8.count == b.utf8.count ? 0 : (a.utf8.count < b.utf8.count ? -1 : 1)
        }
        var left = caseFolded(a).makeIterator(), right = caseFolded(b).makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?) where x != y: return x.value < y.value ? -1 : 1
            default: continue
            }
        }
    }

    /// The case folding of `text`, scalar by scalar: the full lowercase mapping, with the folds
    /// that differ from lowercasing.
    static func caseFolded(_ text: String) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0xDF, 0x1E9E: result += ["s", "s"]
            case 0x3C2: result.append("\u{3C3}")
            case 0x17F: result.append("s")
            case 0xB5: result.append("\u{3BC}")
            case 0x3D0: result.append("\u{3B2}")
            case 0x3D1: result.append("\u{3B8}")
            case 0x3D5: result.append("\u{3C6}")
            case 0x3D6: result.append("\u{3C0}")
            case 0x3F0: result.append("\u{3BA}")
            case 0x3F1: result.append("\u{3C1}")
            case 0x3F5: result.append("\u{3B5}")
            case 0x1FBE: result.append("\u{3B9}")
            default: result += scalar.properties.lowercaseMapping.unicodeScalars
            }
        }
        return result
    }
}

/// The C callback of the case-folding collation.
private func caseFoldingCompare(_ context: UnsafeMutableRawPointer?, _ leftCount: Int32, _ left: UnsafeRawPointer?,
                                _ rightCount: Int32, _ right: UnsafeRawPointer?) -> Int32 {
    let a = String(decoding: UnsafeRawBufferPointer(start: left, count: Int(leftCount)), as: UTF8.self)
    let b = String(decoding: UnsafeRawBufferPointer(start: right, count: Int(rightCount)), as: UTF8.self)
    return Int32(Database.caseFoldingOrder(a, b))
}
