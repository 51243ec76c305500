import CardTemplates
import Foundation
import Persistence
import SQLite

// Anki's "merge note types" import option: an incoming note type with the Anki id of one of the
// deck's but other fields or templates is merged into the deck's type instead of being added
// beside it as a copy. Fields and templates are matched by Anki's id (by name when either has
// none), the ones only one side has are inserted where that side has them, and the notes and
// cards of both sides are mapped onto the merged type.

/// How the fields and templates of an incoming note type map onto the deck's type it was merged
/// into (``BulkImport/importNoteType(_:policy:merging:)``): importers rewrite each incoming note
/// and card with it.
public struct NoteTypeRemap: Sendable, Hashable {
    /// For each field of the merged type, in order, the index of the incoming note's value for
    /// it (nil: a field the incoming type lacks, empty).
    public var fields: [Int?]
    /// Incoming template ordinal → the merged type's (standard types; cloze ordinals are cloze
    /// numbers and stay).
    public var templates: [Int: Int]

    /// An incoming note's field values in the merged type's order.
    public func fieldValues(_ values: [String]) -> [String] {
        fields.map { index in index.flatMap { values.indices.contains($0) ? values[$0] : nil } ?? "" }
    }

    /// An incoming card's ordinal in the merged type.
    public func ordinal(_ incoming: Int) -> Int { templates[incoming] ?? incoming }
}

/// One field or template of a merge: its values, and its position in the type it came from.
struct MergeSlot<Spec> {
    var spec: Spec
    var origin: Int?
}

extension BulkImport {
    /// ``importNoteType(_:policy:)``, with Anki's "merge note types" option when `merging`: an
    /// incoming type whose Anki id is the deck's type's but whose fields or templates differ is
    /// merged into that type (``NoteTypeDecision/Action/merged``) instead of being added as a
    /// copy, and the remap for its notes and cards is returned:
    ///
    /// - Fields (and, for standard types, templates) are matched by Anki's id, or by name when
    ///   either has none. The merged type has every field of both, in the deck's order with
    ///   the incoming fields it lacks inserted at their place in the incoming type once that is
    ///   put in the deck's order (Anki's `Notetype::merge`, run both ways). The deck's notes of
    ///   the type get an empty value for each added field; their cards follow their templates to
    ///   the new ordinals.
    /// - When `policy` allows by the types' modification times, the merged type takes the
    ///   incoming names, formats, CSS and options (the deck's fields it lacks keep theirs); else
    ///   the deck's values, with the incoming fields and templates added.
    /// - As in Anki, the merged type and the deck's notes the merge rewrote (a field added or
    ///   moved) are stamped with the time of the import: under ``ImportUpdatePolicy/newer`` the
    ///   incoming notes of the type are then older than the deck's and don't update them (Anki's
    ///   importer does the same); ``ImportUpdatePolicy/always`` updates them.
    /// - Copies made by earlier imports without the option (``NoteTypeDecision/Action/copied``)
    ///   are left as they are (Anki folds them into the merged type).
    ///
    /// - Throws: ``NoteInputError`` when one type is a cloze type and the other not (Anki refuses
    ///   those too); ``DeckError`` when the store fails.
    public func importNoteType(_ record: ImportNoteType, policy: ImportUpdatePolicy,
                               merging: Bool) throws -> (key: Int64, decision: NoteTypeDecision, remap: NoteTypeRemap?) {
        if merging, let ankiID = record.ankiID {
            try flushRows()
            let all = try document.mainContext.fetch(FetchDescriptor<DeckSchemaV2.NoteType>()).sorted { Self.key(of: $0) < Self.key(of: $1) }
            if let type = all.first(where: { $0.ankiID == ankiID }), !Self.equalSchema(type, record) {
                do {
                    return try merge(record, into: type, policy: policy, names: Set(all.filter { $0 !== type }.map(\.name)))
                } catch let error as DatabaseError {
                    throw DeckError(path: document.url.path, reason: "can't merge note type \(type.name): \(error.message)", kind: DeckError.kind(of: error))
                }
            }
        }
        let (key, decision) = try importNoteType(record, policy: policy)
        return (key, decision, nil)
    }

    /// Anki's merge of two lists (`Notetype::merge`): each item of `other` missing from `base`
    /// is inserted at its index in `other` (its origin cleared: it is new to `base`'s type);
    /// one present at another index is swapped there.
    static func merge<Spec>(_ base: inout [MergeSlot<Spec>], with other: [MergeSlot<Spec>], matches: (Spec, Spec) -> Bool) {
        for (index, item) in other.enumerated() {
            if let found = base.firstIndex(where: { matches($0.spec, item.spec) }) {
                if found != index, index < base.count { base.swapAt(found, index) }
            } else {
                base.insert(MergeSlot(spec: item.spec, origin: nil), at: min(index, base.count))
            }
        }
    }

    static func matches(_ ids: (Int64?, Int64?), _ names: (String, String)) -> Bool {
        if let a = ids.0, let b = ids.1 { return a == b }
        return names.0 == names.1
    }

    private func merge(_ record: ImportNoteType, into type: DeckSchemaV2.NoteType, policy: ImportUpdatePolicy,
                       names: Set<String>) throws -> (key: Int64, decision: NoteTypeDecision, remap: NoteTypeRemap?) {
        guard type.kind == record.kind else {
            throw NoteInputError("note type \(record.name) is \(record.kind == .cloze ? "a cloze" : "a standard") type and the deck's of its id "
                                 + "(\(type.name)) is not: they can't be merged")
        }
        let key = try savedKey(of: type)
        let deckRecord = Self.record(of: type)
        let fieldMatch = { (a: ImportNoteType.Field, b: ImportNoteType.Field) in Self.matches((a.ankiID, b.ankiID), (a.name, b.name)) }
        var incomingFields = record.fields.enumerated().map { MergeSlot(spec: $1, origin: $0) }
        var deckFields = deckRecord.fields.enumerated().map { MergeSlot(spec: $1, origin: $0) }
        Self.merge(&incomingFields, with: deckFields, matches: fieldMatch)
        Self.merge(&deckFields, with: incomingFields, matches: fieldMatch)
        var incomingTemplates = record.templates.enumerated().map { MergeSlot(spec: $1, origin: $0) }
        var deckTemplates = deckRecord.templates.enumerated().map { MergeSlot(spec: $1, origin: $0) }
        if type.kind == .standard {
            let templateMatch = { (a: ImportNoteType.Template, b: ImportNoteType.Template) in Self.matches((a.ankiID, b.ankiID), (a.name, b.name)) }
            Self.merge(&incomingTemplates, with: deckTemplates, matches: templateMatch)
            Self.merge(&deckTemplates, with: incomingTemplates, matches: templateMatch)
        } else {
            // Cloze types have one template, not merged.
            incomingTemplates = Array(incomingTemplates.prefix(deckTemplates.count))
            while incomingTemplates.count < deckTemplates.count { incomingTemplates.append(deckTemplates[incomingTemplates.count]) }
        }
        guard incomingFields.count == deckFields.count, incomingTemplates.count == deckTemplates.count,
              zip(incomingFields, deckFields).allSatisfy({ fieldMatch($0.spec, $1.spec) }) else {
            throw NoteInputError("note type \(record.name): its fields and the deck's type's don't line up for a merge")
        }

        let takesIncoming = policy.allows(existing: type.modified.timeIntervalSince1970, incoming: record.modified.timeIntervalSince1970)
        var merged = takesIncoming ? record : deckRecord
        merged.fields = (takesIncoming ? incomingFields : deckFields).map(\.spec)
        merged.templates = (takesIncoming ? incomingTemplates : deckTemplates).map(\.spec)
        let sortOrigin = takesIncoming ? record.sortField : type.sortField
        merged.sortField = (takesIncoming ? incomingFields : deckFields).firstIndex { $0.origin == sortOrigin } ?? 0
        merged.ankiID = type.ankiID
        if names.contains(merged.name) { merged.name = type.name }
        // Anki stamps the merged type, and the deck's notes the merge rewrites, with the time of the import.
        let now = Date()
        merged.modified = now

        // The deck's rows at their merged positions, new rows for what it lacked; then the values.
        let context = document.mainContext
        let fieldRows = type.fields.sorted { $0.ordinal < $1.ordinal }
        for (position, slot) in deckFields.enumerated() {
            let row: DeckSchemaV2.NoteField
            if let origin = slot.origin, fieldRows.indices.contains(origin) {
                row = fieldRows[origin]
            } else {
                row = DeckSchemaV2.NoteField(ordinal: position, name: merged.fields[position].name)
                context.insert(row)
                row.noteType = type
            }
            row.ordinal = position
            Self.assign(merged.fields[position], to: row)
        }
        let templateRows = type.templates.sorted { $0.ordinal < $1.ordinal }
        for (position, slot) in deckTemplates.enumerated() {
            let spec = merged.templates[position]
            let row: DeckSchemaV2.CardTemplate
            if let origin = slot.origin, templateRows.indices.contains(origin) {
                row = templateRows[origin]
            } else {
                row = DeckSchemaV2.CardTemplate(ordinal: position, name: spec.name, questionFormat: spec.questionFormat, answerFormat: spec.answerFormat)
                context.insert(row)
                row.noteType = type
            }
            row.ordinal = position
            try assign(spec, to: row)
        }
        Self.assign(merged, to: type)
        try document.saveIndexingNotes()
        document.noteLayouts.removeValue(forKey: key)

        // The deck's notes of the type and their cards, onto the merged layout.
        let sql = try updateStatements()
        let fieldOrigins = deckFields.map(\.origin)
        if fieldOrigins != Array(0 ..< fieldRows.count).map(Optional.some) {
            try sql.remapFields(ofNotesOf: key, origins: fieldOrigins, sortField: merged.sortField, modified: now.timeIntervalSince1970)
        } else if type.sortField != deckRecord.sortField {
            try sql.resort(noteType: key, sortField: merged.sortField)
        }
        if type.kind == .standard {
            var moves: [Int: Int] = [:]
            for (position, slot) in deckTemplates.enumerated() { if let origin = slot.origin, origin != position { moves[origin] = position } }
            if !moves.isEmpty { try sql.moveCardOrdinals(ofNotesOf: key, moves) }
        }
        recordSortFields[key] = (merged.sortField, merged.fields.count)

        var templateMap: [Int: Int] = [:]
        for (position, slot) in incomingTemplates.enumerated() { if let origin = slot.origin { templateMap[origin] = position } }
        let remap = NoteTypeRemap(fields: incomingFields.map(\.origin), templates: type.kind == .standard ? templateMap : [:])
        return (key, NoteTypeDecision(name: record.name, action: .merged, deckName: type.name), remap)
    }
}

extension NoteUpdateSQL {
    /// Rewrites every note of `noteType` onto a merged layout: its value at position `i` becomes
    /// its old value at `origins[i]` (empty for nil), its sort text follows `sortField`, its
    /// modification time becomes `modified` (Unix seconds) and its row of the search index is rewritten.
    func remapFields(ofNotesOf noteType: Int64, origins: [Int?], sortField: Int, modified: Double) throws {
        let notes = try db.prepare("SELECT \"pk\" FROM \"Note\" WHERE \"noteType\" = ?")
        try notes.bind([.integer(noteType)])
        var keys: [Int64] = []
        while try notes.step() { keys.append(notes.int64(at: 0)) }
        for key in keys {
            let old = try fieldValues(of: key)
            let values = origins.map { origin in origin.flatMap { old.indices.contains($0) ? old[$0] : nil } ?? "" }
            try rewrite(key, fields: values, sortText: Self.sortText(values, sortField: sortField), modified: modified, tagKeys: nil, mediaKeys: nil)
        }
    }

    /// Moves the cards of `noteType`'s notes from one template ordinal to another (`moves`:
    /// old → new), in two steps so that no two cards of a note share an ordinal meanwhile.
    func moveCardOrdinals(ofNotesOf noteType: Int64, _ moves: [Int: Int]) throws {
        let notes = "SELECT \"pk\" FROM \"Note\" WHERE \"noteType\" = ?"
        for (from, to) in moves {
            try db.execute("UPDATE \"Card\" SET \"ordinal\" = ? WHERE \"ordinal\" = ? AND \"note\" IN (\(notes))",
                           [.integer(-1 - Int64(to)), .integer(Int64(from)), .integer(noteType)])
        }
        try db.execute("UPDATE \"Card\" SET \"ordinal\" = -1 - \"ordinal\" WHERE \"ordinal\" < 0 AND \"note\" IN (\(notes))", [.integer(noteType)])
    }
}
