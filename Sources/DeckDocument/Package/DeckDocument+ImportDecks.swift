import Foundation
import Persistence

// Decks and presets of a package already in the deck, on re-import: matched (decks by name,
// presets by Anki id) and updated under the import's ``ImportUpdatePolicy``, as notes and note
// types are. Few rows: through the main context, and only when something differs (an unchanged
// deck or preset is not written at all).

/// What an import did with one incoming deck or preset.
public enum ImportRowAction: String, Sendable, Hashable, Codable {
    /// New to the deck (or the deck's row of that name had no Anki id yet and took the file's).
    case added
    /// The deck's row took the incoming values.
    case updated
    /// The deck's row has the incoming values already: nothing written.
    case unchanged
    /// The incoming values differ but the deck's row stays as it is (``ImportUpdatePolicy``
    /// said no, or it is Anki's default preset; see ``BulkImport/importPreset(_:policy:)``).
    case kept
}

/// Counts of an import's decks or presets by what was done with them.
public struct ImportRowCounts: Sendable, Hashable, Codable {
    public var added = 0, updated = 0, unchanged = 0, kept = 0
    public init() {}

    /// Counts one row.
    public mutating func record(_ action: ImportRowAction) {
        switch action {
        case .added: added += 1
        case .updated: updated += 1
        case .unchanged: unchanged += 1
        case .kept: kept += 1
        }
    }

    /// Rows the deck had already (updated, unchanged or kept).
    public var existing: Int { updated + unchanged + kept }

    /// Adds another file's counts.
    public mutating func add(_ other: ImportRowCounts) {
        added += other.added
        updated += other.updated
        unchanged += other.unchanged
        kept += other.kept
    }
}

extension BulkImport {
    /// Anki's id of the default preset, which every Anki collection has.
    public static let defaultPresetAnkiID: Int64 = 1

    /// Adds an incoming preset, or matches it with the deck's preset of the same Anki id (the
    /// one of the same name first) and updates that one, returning its key and what was done:
    ///
    /// - no preset of the deck has its id: added (the store's own unused default preset, in a
    ///   deck without cards, takes the package's default instead);
    /// - every option (limits, steps, FSRS parameters and retention, SM-2 values, burying, name,
    ///   the kept Anki options) equal: unchanged, nothing written;
    /// - otherwise, when `policy` allows by the presets' modification times: the deck's preset
    ///   takes every incoming value (updated), else it stays (kept).
    ///
    /// Anki's default preset (id 1) is kept as the deck has it whatever `policy` says: every Anki
    /// collection has one, so a package's names no particular preset (Anki's importer keeps every
    /// preset already there, whatever its time).
    /// - Throws: the store's error.
    public func importPreset(_ record: ImportPreset, policy: ImportUpdatePolicy) throws -> (key: Int64, action: ImportRowAction) {
        try flushRows()
        let context = document.mainContext
        if let ankiID = record.ankiID {
            let found = try context.fetch(FetchDescriptor<DeckSchemaV2.Preset>(predicate: #Predicate { $0.ankiID == ankiID }))
                .sorted { Self.key(of: $0) < Self.key(of: $1) }
            if let existing = found.first(where: { $0.name == record.name }) ?? found.first {
                let key = try savedKey(of: existing)
                if Self.values(of: existing) == Self.comparable(record) { return (key, .unchanged) }
                guard ankiID != Self.defaultPresetAnkiID,
                      policy.allows(existing: existing.modified.timeIntervalSince1970, incoming: record.modified.timeIntervalSince1970) else {
                    return (key, .kept)
                }
                apply(record, to: existing)
                try document.saveIndexingNotes()
                return (key, .updated)
            }
        }
        return (try addPreset(record), .added)
    }

    /// A preset's values as a record, without its modification time (what an update compares).
    static func values(of preset: DeckSchemaV2.Preset) -> ImportPreset {
        var record = ImportPreset(name: preset.name)
        record.newPerDay = preset.newPerDay
        record.reviewsPerDay = preset.reviewsPerDay
        record.learningSteps = preset.learningSteps
        record.relearningSteps = preset.relearningSteps
        record.maximumInterval = preset.maximumInterval
        record.usesFSRS = preset.usesFSRS
        record.fsrsParameters = preset.fsrsParameters
        record.desiredRetention = preset.desiredRetention
        record.startingEase = preset.startingEase
        record.graduatingInterval = preset.graduatingInterval
        record.easyInterval = preset.easyInterval
        record.easyBonus = preset.easyBonus
        record.hardMultiplier = preset.hardMultiplier
        record.intervalMultiplier = preset.intervalMultiplier
        record.lapseMultiplier = preset.lapseMultiplier
        record.minimumLapseInterval = preset.minimumLapseInterval
        record.leechThreshold = preset.leechThreshold
        record.buryNewSiblings = preset.buryNewSiblings
        record.buryReviewSiblings = preset.buryReviewSiblings
        record.buryInterdaySiblings = preset.buryInterdaySiblings
        record.ankiID = preset.ankiID
        record.options = preset.ankiOptions
        return record
    }

    static func comparable(_ record: ImportPreset) -> ImportPreset {
        var copy = record
        copy.modified = Date(timeIntervalSince1970: 0)
        return copy
    }

    /// Adds an incoming deck of the tree, or matches it with the deck's deck of the same name and
    /// updates that one, returning its key and what was done. Anki's importer's rules for a deck
    /// already there, under `policy` (Anki's own import applies them whatever the times):
    ///
    /// - a normal deck takes the incoming description (and whether it is Markdown) when that is
    ///   not empty, and the incoming preset when `takesPreset` (Anki: unless the incoming deck
    ///   uses the default preset) and ``ImportDeck/preset`` is set;
    /// - a filtered deck takes the incoming search terms and whether it reschedules;
    /// - the rest (collapsed, the kept Anki options, its cards) stays the deck's.
    ///
    /// When none of those values differ: unchanged, nothing written. When they do and `policy`
    /// allows by the decks' modification times: updated (with the incoming modification time),
    /// else kept. A deck of the other kind (filtered against normal) is kept as it is. A deck of
    /// that name without an Anki id (the store's `Default`, a deck made here) takes the record's
    /// id and options as ``addDeck(_:)`` describes, and counts as added.
    /// - Throws: ``NoteInputError`` for a path with an empty level; the store's error.
    public func importDeck(_ record: ImportDeck, takesPreset: Bool, policy: ImportUpdatePolicy) throws -> (key: Int64, action: ImportRowAction) {
        try flushRows()
        let context = document.mainContext
        let name = record.name
        var descriptor = FetchDescriptor<DeckSchemaV2.Deck>(predicate: #Predicate { $0.name == name })
        descriptor.fetchLimit = 1
        guard let existing = try context.fetch(descriptor).first, existing.ankiID != nil else {
            return (try addDeck(record), .added)
        }
        let key = try savedKey(of: existing)
        guard existing.kind == record.kind else { return (key, .kept) }
        var preset: DeckSchemaV2.Preset?
        if takesPreset, record.kind == .normal, let presetKey = record.preset {
            preset = try context.model(for: PersistentIdentifier(storeIdentifier: "Deck", entityName: DeckSchemaV2.Preset.entityName,
                                                                  primaryKey: presetKey)) as? DeckSchemaV2.Preset
        }
        var differs = false
        if record.kind == .normal {
            if !record.description.isEmpty,
               existing.deckDescription != record.description || existing.markdownDescription != record.markdownDescription {
                differs = true
            }
            if let preset, existing.preset !== preset { differs = true }
        } else if existing.filterTerms != record.filterTerms || existing.reschedules != record.reschedules {
            differs = true
        }
        guard differs else { return (key, .unchanged) }
        guard policy.allows(existing: existing.modified.timeIntervalSince1970, incoming: record.modified.timeIntervalSince1970) else {
            return (key, .kept)
        }
        if record.kind == .normal {
            if !record.description.isEmpty {
                existing.deckDescription = record.description
                existing.markdownDescription = record.markdownDescription
            }
            if let preset { existing.preset = preset }
        } else {
            existing.filterTerms = record.filterTerms
            existing.reschedules = record.reschedules
        }
        existing.modified = record.modified
        try document.saveIndexingNotes()
        return (key, .updated)
    }
}
