import Foundation
import SQLite
import Testing
@testable import DeckDocument

/// The GUIDs a bulk import gives new notes (``AnkiGUID/Ascending``): ascending in byte order (so
/// the `guid` index takes them in order), distinct, and in the shape Anki's GUIDs have.
@Suite struct AscendingGUIDTests {
    /// The digits are the alphabet in byte order, and encoding keeps the order of numbers.
    @Test func encodingKeepsNumberOrder() {
        #expect(AnkiGUID.Ascending.digits.count == 91)
        #expect(Set(AnkiGUID.Ascending.digits) == Set(AnkiGUID.alphabetBytes))
        #expect(zip(AnkiGUID.Ascending.digits, AnkiGUID.Ascending.digits.dropFirst()).allSatisfy { $0 < $1 })
        var generator = AnkiGUID.FastRandom()
        var values: [UInt64] = [0, 1, 90, 91, AnkiGUID.Ascending.smallest, UInt64.max - 1, UInt64.max]
        for _ in 0..<5_000 { values.append(generator.next()) }
        values.sort()
        let encoded = values.map(AnkiGUID.Ascending.encode)
        #expect(encoded.allSatisfy { $0.utf8.count == 10 })
        for (a, b) in zip(encoded, encoded.dropFirst()) {
            #expect(Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) || a == b)
        }
        #expect(AnkiGUID.Ascending.encode(0) == "!!!!!!!!!!")
        #expect(AnkiGUID.Ascending.encode(90) == "!!!!!!!!!~")
        #expect(AnkiGUID.Ascending.encode(AnkiGUID.Ascending.smallest) == "A!!!!!!!!!")
    }

    /// A generator's GUIDs rise strictly, start with a capital letter, use Anki's alphabet; two
    /// generators start apart.
    @Test func generatedGUIDsRise() {
        var generator = AnkiGUID.Ascending()
        let guids = (0..<20_000).map { _ in generator.next() }
        for (a, b) in zip(guids, guids.dropFirst()) { #expect(Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))) }
        #expect(guids.allSatisfy { $0.utf8.count == 10 && $0.allSatisfy(AnkiGUID.alphabet.contains) })
        #expect(guids.allSatisfy { ("A"..."R").contains($0.first ?? " ") })
        var other = AnkiGUID.Ascending()
        #expect(other.next() != guids[0])
    }

    /// The notes of an import without GUIDs get them in the order of their keys, and a second
    /// import's notes do not collide with the first's.
    @Test func importedNotesGetGUIDsInKeyOrder() throws {
        let playground = try Playground()
        let deck = try DeckDocument.create(at: playground.file("guids.sampledeck"), title: "GUIDs")
        for _ in 0..<2 {
            try deck.bulkImport { session in
                for index in 0..<500 {
                    try session.add(ImportedNote(kind: .basic, front: "front \(index)", back: "back \(index)"))
                }
            }
        }
        let db = try Database(path: deck.storeURL.path, mode: .readOnly)
        defer { db.close() }
        let guids = try db.rows("SELECT \"guid\" FROM \"Note\" ORDER BY \"pk\"").compactMap { row -> String? in
            guard case .text(let value) = row.first else { return nil }
            return value
        }
        #expect(guids.count == 1_000)
        #expect(Set(guids).count == 1_000)
        for half in [guids[..<500], guids[500...]] {
            for (a, b) in zip(half, half.dropFirst()) { #expect(Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))) }
        }
    }
}
