import Digest
import Foundation
import Persistence
import SQLite

/// Contents given to ``DeckDocument/restore(_:notes:mediaData:adoptsTitle:)`` that a deck
/// can't hold: a value out of its range, a reference to nothing, two of what must be one.
public struct RestoreInputError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension DeckDocument {
    /// Writes `contents` and `notes` (a lossless export read back) into the deck, all or nothing.
    ///
    /// A deck without notes and reviews (as `deck create` leaves it) is restored in place: it
    /// takes the file's presets, decks, note types (with fields and templates), tags, media and
    /// collection values (day zero, day start, Anki's configuration) with their ids, replacing
    /// its own of the same id or name, and every note, card and review is written column for
    /// column with its id: exporting the deck again gives the same contents. A deck with notes
    /// gets a merge: presets and decks are matched by name, note types by name and field names
    /// (else added, the name made unique), tags by name ignoring case; a note whose GUID is in
    /// the deck updates it as `update` says (see ``ImportUpdatePolicy``; by the notes'
    /// `modified`): its fields, tags and media links replace the deck's unless they are the
    /// same (unchanged) or its note type is not the deck's note's (skipped); the deck's cards
    /// keep their scheduling and reviews, cards at ordinals the deck's note lacks are added. The
    /// rest get new ids, and day-numbered due values are moved to the deck's day zero. `mediaData` gives each media file's bytes (nil: missing, counted);
    /// bytes must match the record's SHA-256 and size. The title and description are taken when
    /// `adoptsTitle`.
    /// - Throws: ``RestoreInputError`` for contents a deck can't hold (nothing is written);
    ///   ``DeckError``; the store's error (the deck is left as it was).
    @discardableResult
    public func restore(_ contents: DeckContents, notes: [NoteRecord], mediaData: (MediaRecord) throws -> Data?,
                        adoptsTitle: Bool, update: ImportUpdatePolicy = .newer) throws -> RestoreReport {
        try requireWritable()
        try Self.validate(contents, notes: notes)
        var report = RestoreReport()
        report.restoredInPlace = try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
            (try db.scalar("SELECT count(*) FROM (SELECT 1 FROM \"Note\" UNION ALL SELECT 1 FROM \"Review\" LIMIT 1)", as: Int64.self) ?? 0) == 0
        }
        if adoptsTitle {
            try setTitle(contents.title)
            try setDeckDescription(contents.description)
        }
        do {
            // A restore writes its rows with its own SQL and relies on SQLite's foreign key
            // actions: SQLite checks every row (not ``ForeignKeyChecking/atEnd``).
            try bulkImport(rowsPerStatement: nil, foreignKeys: .everyRow) { _ in
                // Media files first (each file written once; removed again if the import fails).
                var present: [MediaRecord] = []
                for item in contents.media {
                    guard let data = try mediaData(item) else {
                        report.missingMedia += 1
                        continue
                    }
                    guard SHA256Hex.of(data) == item.sha256, data.count == item.size else {
                        throw RestoreInputError("media \"\(item.fileName)\": its bytes do not match its sha256 and size")
                    }
                    try writeMediaFile(data, fileName: item.fileName)
                    present.append(item)
                }
                try container.withDatabase(for: DeckSchemaV2.Note.self) { db in
                    var writer = RestoreWriter(db: db, inPlace: report.restoredInPlace, policy: update, path: url.path)
                    try writer.write(contents, media: present, notes: notes, report: &report)
                }
                report.mediaFiles = present.count
            }
        } catch let error as DatabaseError {
            throw DeckError(path: url.path, reason: "can't write the imported notes: \(error.message)", kind: DeckError.kind(of: error))
        }
        noteLayouts.removeAll()
        mediaByFileName.removeAll()
        mediaNames.removeAll()
        if report.updates.updated > 0 || !report.restoredInPlace { try refreshAfterImportUpdates() }
        return report
    }

    /// Checks everything a deck can't hold before anything is written.
    static func validate(_ contents: DeckContents, notes: [NoteRecord]) throws {
        func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw RestoreInputError(message()) }
        }
        let dates = CardValueLimits.dates, int32 = Int(Int32.min)...Int(Int32.max), counts = CardValueLimits.counts
        func unique<T: Hashable>(_ values: [T], _ what: String) throws {
            var seen = Set<T>()
            for value in values where !seen.insert(value).inserted { throw RestoreInputError("two \(what) \(value)") }
        }
        try check((0...23).contains(contents.dayStartsAt), "dayStartsAt \(contents.dayStartsAt) is not an hour 0-23")
        try unique(contents.presets.map(\.id), "presets have the id")
        try unique(contents.decks.map(\.id), "decks have the id")
        try unique(contents.decks.map(\.name), "decks are named")
        try unique(contents.noteTypes.map(\.id), "note types have the id")
        try unique(contents.tags.map(\.name), "tags are named")
        try unique(contents.media.map(\.fileName), "media files are named")
        try unique(contents.media.flatMap(\.names), "media files have the name")
        let presets = Set(contents.presets.map(\.id)), decks = Set(contents.decks.map(\.id))
        for preset in contents.presets {
            try check(dates.contains(preset.modified), "preset \(preset.id): modified is out of range")
            for value in [preset.newPerDay, preset.reviewsPerDay, preset.maximumInterval, preset.startingEase, preset.graduatingInterval,
                          preset.easyInterval, preset.minimumLapseInterval, preset.leechThreshold] {
                try check(counts.contains(value), "preset \(preset.id): a count is out of range (\(value))")
            }
            // The ranges of docs/FORMAT.md the store's check applies (what the scheduler computes with).
            try check(preset.maximumInterval >= 1, "preset \(preset.id): maximumInterval is not positive")
            try check((0...100_000).contains(preset.startingEase), "preset \(preset.id): startingEase is out of range (0-100000 permille)")
            for (name, value) in [("easyBonus", preset.easyBonus), ("hardMultiplier", preset.hardMultiplier),
                                  ("intervalMultiplier", preset.intervalMultiplier), ("lapseMultiplier", preset.lapseMultiplier)] {
                try check(value.isFinite && (0...1000).contains(value), "preset \(preset.id): \(name) is out of range (0-1000)")
            }
            try check(preset.desiredRetention > 0 && preset.desiredRetention < 1, "preset \(preset.id): desiredRetention is out of range (0-1)")
            for (name, text) in [("learningSteps", preset.learningSteps), ("relearningSteps", preset.relearningSteps)] {
                let steps: [Any]?
                do { steps = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] } catch { steps = nil }
                try check(steps?.allSatisfy { (($0 as? NSNumber)?.doubleValue).map { $0 > 0 && $0 < 1e9 } ?? false } ?? false,
                          "preset \(preset.id): \(name) is not a JSON array of steps (more than 0, less than 1e9 minutes)")
            }
        }
        for deck in contents.decks {
            try check(!deck.name.isEmpty, "deck \(deck.id) has no name")
            try check((0...1).contains(deck.kind), "deck \(deck.id): kind \(deck.kind) is not 0 or 1")
            try check(dates.contains(deck.modified), "deck \(deck.id): modified is out of range")
            try check(deck.preset.map(presets.contains) ?? true, "deck \(deck.id): preset \(deck.preset ?? 0) is not in the file")
        }
        var fieldCounts: [Int64: Int] = [:]
        for type in contents.noteTypes {
            try check((0...1).contains(type.kind), "note type \(type.id): kind \(type.kind) is not 0 or 1")
            try check(type.stockKind.map { (1...6).contains($0) } ?? true, "note type \(type.id): stockKind is not 1-6")
            try check(dates.contains(type.modified), "note type \(type.id): modified is out of range")
            try check(!type.fields.isEmpty, "note type \(type.id) has no field")
            try unique(type.fields.map(\.ordinal), "fields of note type \(type.id) have the ordinal")
            try unique(type.templates.map(\.ordinal), "templates of note type \(type.id) have the ordinal")
            for template in type.templates {
                try check(template.targetDeck.map(decks.contains) ?? true, "note type \(type.id): a template's deck is not in the file")
                try check(dates.contains(template.modified), "note type \(type.id): a template's modified is out of range")
            }
            fieldCounts[type.id] = type.fields.count
        }
        for item in contents.media {
            try check(MediaReference.isValidFileName(item.fileName) && item.fileName.hasPrefix(item.sha256) && item.sha256.utf8.count == 64,
                      "media \"\(item.fileName)\" is not named <sha256>.<ext> after its sha256")
            try check(item.size >= 0, "media \"\(item.fileName)\": size is negative")
            for name in item.names { try check(!name.isEmpty && !name.contains("/") && name != "." && name != "..", "media name \"\(name)\" is not a file name") }
        }
        let mediaNames = Set(contents.media.flatMap(\.names))
        try unique(notes.map(\.id), "notes have the id")
        try unique(notes.map(\.guid), "notes have the GUID")
        try unique(notes.flatMap { $0.cards.map(\.id) }, "cards have the id")
        func review(_ review: ReviewRecord, _ label: String) throws {
            try check(CardValueLimits.answers.contains(review.rating), "\(label): rating \(review.rating) is not 0-4")
            try check((0...5).contains(review.kind), "\(label): kind \(review.kind) is not 0-5")
            try check(int32.contains(review.interval) && int32.contains(review.lastInterval), "\(label): interval is out of range")
            try check((0...86_400_000).contains(review.duration), "\(label): duration is out of range")
            try check((0...100_000).contains(review.easeFactor), "\(label): easeFactor is out of range")
            try check(dates.contains(Double(review.time) / 1000), "\(label): time is out of range")
        }
        for (index, item) in contents.detachedReviews.enumerated() { try review(item, "detached review \(index + 1)") }
        for note in notes {
            let label = "note \(note.id)"
            try check(!note.guid.isEmpty, "\(label) has no GUID")
            guard let count = fieldCounts[note.noteType] else { throw RestoreInputError("\(label): note type \(note.noteType) is not in the file") }
            try check(note.fields.count == count, "\(label) has \(note.fields.count) fields; its note type has \(count)")
            try check(dates.contains(note.created) && dates.contains(note.modified), "\(label): created or modified is out of range")
            try check(!note.cards.isEmpty, "\(label) has no card")
            try unique(note.cards.map(\.ordinal), "cards of \(label) have the ordinal")
            for name in note.media { try check(mediaNames.contains(name), "\(label): media \"\(name)\" is not in the file's media") }
            for card in note.cards {
                let label = "card \(card.id)"
                try check(card.ordinal >= 0 && card.ordinal < 1000, "\(label): ordinal \(card.ordinal) is out of range")
                try check(card.deck.map(decks.contains) ?? true, "\(label): deck \(card.deck ?? 0) is not in the file")
                try check(card.originalDeck.map(decks.contains) ?? true, "\(label): originalDeck is not in the file")
                try check((0...3).contains(card.type), "\(label): type \(card.type) is not 0-3")
                try check((-3...4).contains(card.queue), "\(label): queue \(card.queue) is not -3 to 4")
                try check((0...7).contains(card.flag), "\(label): flag \(card.flag) is not 0-7")
                try check(counts.contains(card.interval) && counts.contains(card.repetitions) && counts.contains(card.lapses),
                          "\(label): interval, repetitions or lapses is out of range")
                try check((0...100_000).contains(card.easeFactor), "\(label): easeFactor is out of range")
                try check((-1_000_000_000_000...1_000_000_000_000).contains(card.due), "\(label): due is out of range")
                try check((-1_000_000_000_000...1_000_000_000_000).contains(card.originalDue), "\(label): originalDue is out of range")
                try check(dates.contains(card.created) && dates.contains(card.modified), "\(label): created or modified is out of range")
                for value in [card.stability, card.difficulty, card.desiredRetention, card.decay] {
                    try check(value.map { $0.isFinite } ?? true, "\(label): a memory state value is not finite")
                }
                for (index, item) in card.reviews.enumerated() { try review(item, "\(label) review \(index + 1)") }
            }
        }
    }
}

/// SHA-256 as lowercase hex (Digest's, named here so the restore reads plainly).
enum SHA256Hex {
    static func of(_ data: Data) -> String { Digest.SHA256.hex(data) }
}

/// The SQL of a restore, inside ``DeckDocument/bulkImport(_:)``'s transaction.
struct RestoreWriter {
    let db: Database
    let inPlace: Bool
    let policy: ImportUpdatePolicy
    let path: String
    var presetKeys: [Int64: Int64] = [:]
    var deckKeys: [Int64: Int64] = [:]
    var typeKeys: [Int64: Int64] = [:]
    var tagKeys: [String: Int64] = [:]
    var foldedTagKeys: [String: Int64] = [:]
    var mediaKeys: [String: Int64] = [:]

    /// What became of each note type of the file (merging).
    var typeDecisions: [NoteTypeDecision] = []

    init(db: Database, inPlace: Bool, policy: ImportUpdatePolicy = .newer, path: String = "") {
        self.db = db
        self.inPlace = inPlace
        self.policy = policy
        self.path = path
    }

    static func optional(_ value: Int64?) -> SQLValue { value.map { .integer($0) } ?? .null }
    static func optional(_ value: Double?) -> SQLValue { value.map { .real($0) } ?? .null }
    static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
    static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }

    mutating func write(_ contents: DeckContents, media: [MediaRecord], notes: [NoteRecord], report: inout RestoreReport) throws {
        let deckDayZero = try db.scalar("SELECT \"dayZero\" FROM \"DeckInfo\" ORDER BY \"pk\" LIMIT 1", as: Int64.self) ?? contents.dayZero
        if inPlace {
            try db.execute("UPDATE \"DeckInfo\" SET \"dayZero\" = ?, \"dayStartsAt\" = ?, \"ankiConfig\" = ?",
                           [.integer(contents.dayZero), Self.int(contents.dayStartsAt), .text(contents.ankiConfig)])
        }
        try writePresets(contents.presets)
        try writeDecks(contents.decks)
        try writeNoteTypes(contents.noteTypes)
        try writeTags(contents.tags)
        try writeMedia(media)
        // Day numbers of a merged file count from the file's day zero; the deck's may differ.
        let shift = inPlace ? 0 : Int64(((Double(contents.dayZero) - Double(deckDayZero)) / 86_400).rounded())
        report.updates.noteTypes = typeDecisions
        let updates = inPlace ? nil : try NoteUpdateSQL(db: db, path: path)
        let insertNote = try db.prepare("""
            INSERT INTO "Note" ("pk", "guid", "fields", "sortText", "created", "modified", "ankiID", "noteType") VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertCard = try db.prepare("""
            INSERT INTO "Card" ("pk", "ordinal", "type", "queue", "due", "interval", "easeFactor", "repetitions", "lapses", "remainingSteps", \
            "originalDue", "flag", "stability", "difficulty", "desiredRetention", "decay", "lastReview", "originalPosition", "customData", \
            "created", "modified", "ankiID", "ankiOptions", "note", "deck", "originalDeck") \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertReview = try db.prepare("""
            INSERT INTO "Review" ("time", "rating", "interval", "lastInterval", "easeFactor", "duration", "kind", "ankiID", "card") \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let linkTag = try db.prepare("INSERT OR IGNORE INTO \"Note_tags\" (\"source\", \"target\") VALUES (?, ?)")
        let linkMedia = try db.prepare("INSERT OR IGNORE INTO \"Note_media\" (\"source\", \"target\") VALUES (?, ?)")
        let encoder = JSONEncoder()
        func reviewValues(_ review: ReviewRecord, card: SQLValue) -> [SQLValue] {
            [.integer(review.time), Self.int(review.rating), Self.int(review.interval), Self.int(review.lastInterval),
             Self.int(review.easeFactor), Self.int(review.duration), Self.int(review.kind), Self.optional(review.ankiID), card]
        }
        for review in contents.detachedReviews {
            try insertReview.execute(reviewValues(review, card: .null))
            report.reviews += 1
        }
        func insertCards(_ cards: [CardRecord], note noteKey: Int64) throws {
            for card in cards {
                var due = card.due, originalDue = card.originalDue
                if shift != 0 {
                    if Self.isDayNumber(due, type: card.type, queue: card.queue) { due += shift }
                    if card.originalDeck != nil, originalDue != 0, card.type >= 2, originalDue < 1_000_000_000 { originalDue += shift }
                }
                try insertCard.execute([
                    inPlace ? .integer(card.id) : .null, Self.int(card.ordinal), Self.int(card.type), Self.int(card.queue), .integer(due),
                    Self.int(card.interval), Self.int(card.easeFactor), Self.int(card.repetitions), Self.int(card.lapses),
                    Self.int(card.remainingSteps), .integer(originalDue), Self.int(card.flag), Self.optional(card.stability),
                    Self.optional(card.difficulty), Self.optional(card.desiredRetention), Self.optional(card.decay),
                    Self.optional(card.lastReview), Self.optional(card.originalPosition), .text(card.customData), .real(card.created),
                    .real(card.modified), Self.optional(card.ankiID), .text(card.ankiOptions), .integer(noteKey),
                    Self.optional(card.deck.flatMap { deckKeys[$0] }), Self.optional(card.originalDeck.flatMap { deckKeys[$0] }),
                ])
                let cardKey = db.lastInsertRowID
                for review in card.reviews {
                    try insertReview.execute(reviewValues(review, card: .integer(cardKey)))
                    report.reviews += 1
                }
                report.cardsAdded += 1
            }
        }
        for note in notes {
            guard let type = typeKeys[note.noteType] else { throw RestoreInputError("note \(note.id): its note type is not in the file") }
            if let updates, let saved = try updates.note(guid: note.guid) {
                let outcome = try update(saved, with: note, typeKey: type, updates)
                report.updates.record(outcome, guid: note.guid, text: note.sortText)
                if outcome != .skipped(.noteType) {
                    let present = try updates.cardOrdinals(of: saved.key)
                    try insertCards(note.cards.filter { !present.contains($0.ordinal) }, note: saved.key)
                }
                continue
            }
            let fields = String(decoding: try encoder.encode(note.fields), as: UTF8.self)
            try insertNote.execute([inPlace ? .integer(note.id) : .null, .text(note.guid), .text(fields), .text(note.sortText),
                                    .real(note.created), .real(note.modified), Self.optional(note.ankiID), .integer(type)])
            let noteKey = db.lastInsertRowID
            try insertCards(note.cards, note: noteKey)
            for tag in note.tags {
                try linkTag.execute([.integer(noteKey), .integer(try tagKey(tag, collapsed: false))])
            }
            for name in note.media {
                if let key = mediaKeys[name] { try linkMedia.execute([.integer(noteKey), .integer(key)]) }
            }
            report.notesAdded += 1
        }
    }

    /// A merged note whose GUID is in the deck (``DeckDocument/restore(_:notes:mediaData:adoptsTitle:update:)``).
    mutating func update(_ saved: SavedNote, with note: NoteRecord, typeKey: Int64, _ sql: NoteUpdateSQL) throws -> NoteUpdateOutcome {
        guard saved.noteType == typeKey else { return .skipped(.noteType) }
        if try sql.hasContents(saved.key, fields: note.fields, tags: note.tags) { return .unchanged }
        guard policy.allows(existing: saved.modified, incoming: note.modified) else { return .skipped(policy == .never ? .never : .older) }
        var tags: [Int64] = []
        for tag in note.tags { tags.append(try tagKey(tag, collapsed: false)) }
        try sql.rewrite(saved.key, fields: note.fields, sortText: note.sortText, modified: note.modified, tagKeys: tags,
                        mediaKeys: note.media.compactMap { mediaKeys[$0] })
        return .updated
    }

    /// Whether a card's `due` is a day number (review and day-learning queues; buried and
    /// suspended review cards), not a position or a Unix time.
    static func isDayNumber(_ due: Int64, type: Int, queue: Int) -> Bool {
        switch queue {
        case 2, 3: true
        case ..<0: type >= 2 && due < 1_000_000_000
        default: false
        }
    }

    mutating func writePresets(_ presets: [PresetRecord]) throws {
        var byName: [String: Int64] = [:]
        if !inPlace {
            let rows = try db.prepare("SELECT \"pk\", \"name\" FROM \"Preset\" ORDER BY \"pk\" DESC")
            while try rows.step() { byName[rows.string(at: 1)] = rows.int64(at: 0) }
        }
        let insert = try db.prepare("""
            INSERT INTO "Preset" ("pk", "name", "newPerDay", "reviewsPerDay", "learningSteps", "relearningSteps", "maximumInterval", "usesFSRS", \
            "fsrsParameters", "desiredRetention", "startingEase", "graduatingInterval", "easyInterval", "easyBonus", "hardMultiplier", \
            "intervalMultiplier", "lapseMultiplier", "minimumLapseInterval", "leechThreshold", "buryNewSiblings", "buryReviewSiblings", \
            "buryInterdaySiblings", "modified", "ankiID", "ankiOptions") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        if inPlace { try deleteRows("Preset", ids: presets.map(\.id), names: presets.map(\.name)) }
        for p in presets {
            if !inPlace, let key = byName[p.name] {
                presetKeys[p.id] = key
                continue
            }
            try insert.execute([
                inPlace ? .integer(p.id) : .null, .text(p.name), Self.int(p.newPerDay), Self.int(p.reviewsPerDay), .text(p.learningSteps),
                .text(p.relearningSteps), Self.int(p.maximumInterval), Self.bool(p.usesFSRS), .text(p.fsrsParameters),
                .real(p.desiredRetention), Self.int(p.startingEase), Self.int(p.graduatingInterval), Self.int(p.easyInterval),
                .real(p.easyBonus), .real(p.hardMultiplier), .real(p.intervalMultiplier), .real(p.lapseMultiplier),
                Self.int(p.minimumLapseInterval), Self.int(p.leechThreshold), Self.bool(p.buryNewSiblings), Self.bool(p.buryReviewSiblings),
                Self.bool(p.buryInterdaySiblings), .real(p.modified), Self.optional(p.ankiID), .text(p.ankiOptions),
            ])
            presetKeys[p.id] = db.lastInsertRowID
        }
    }

    mutating func writeDecks(_ decks: [DeckRecord]) throws {
        let insert = try db.prepare("""
            INSERT INTO "Deck" ("pk", "name", "kind", "deckDescription", "markdownDescription", "collapsed", "filterTerms", "reschedules", \
            "modified", "ankiID", "ankiOptions", "preset") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        if inPlace { try deleteRows("Deck", ids: decks.map(\.id), names: decks.map(\.name)) }
        for d in decks {
            if !inPlace, let key = try db.scalar("SELECT \"pk\" FROM \"Deck\" WHERE \"name\" = ?", [.text(d.name)], as: Int64.self) {
                deckKeys[d.id] = key
                continue
            }
            try insert.execute([
                inPlace ? .integer(d.id) : .null, .text(d.name), Self.int(d.kind), .text(d.description), Self.bool(d.markdownDescription),
                Self.bool(d.collapsed), .text(d.filterTerms), Self.bool(d.reschedules), .real(d.modified), Self.optional(d.ankiID),
                .text(d.ankiOptions), Self.optional(d.preset.flatMap { presetKeys[$0] }),
            ])
            deckKeys[d.id] = db.lastInsertRowID
        }
    }

    mutating func writeNoteTypes(_ types: [NoteTypeRecord]) throws {
        // Merging: the deck's types by name with their field names in order.
        var existing: [String: [(key: Int64, fields: [String], kind: Int)]] = [:]
        var names: Set<String> = []
        if !inPlace {
            let rows = try db.prepare("""
                SELECT t."pk", t."name", t."kind", coalesce((SELECT json_group_array(f."name") FROM \
                (SELECT "name" FROM "NoteField" WHERE "noteType" = t."pk" ORDER BY "ordinal", "pk") f), '[]') FROM "NoteType" t ORDER BY t."pk"
                """)
            while try rows.step() {
                let fields = try JSONDecoder().decode([String].self, from: Data(rows.string(at: 3).utf8))
                existing[rows.string(at: 1), default: []].append((rows.int64(at: 0), fields, Int(rows.int64(at: 2))))
                names.insert(rows.string(at: 1))
            }
        }
        let insert = try db.prepare("""
            INSERT INTO "NoteType" ("pk", "name", "kind", "stockKind", "css", "sortField", "latexPre", "latexPost", "latexSVG", "modified", \
            "ankiID", "ankiOptions") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertField = try db.prepare("""
            INSERT INTO "NoteField" ("ordinal", "name", "font", "fontSize", "rightToLeft", "sticky", "plainText", "collapsed", \
            "excludeFromSearch", "fieldDescription", "ankiID", "ankiOptions", "noteType") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertTemplate = try db.prepare("""
            INSERT INTO "CardTemplate" ("ordinal", "name", "questionFormat", "answerFormat", "browserQuestionFormat", "browserAnswerFormat", \
            "browserFont", "browserFontSize", "modified", "ankiID", "ankiOptions", "noteType", "targetDeck") \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        if inPlace { try deleteRows("NoteType", ids: types.map(\.id), names: types.map(\.name)) }
        for t in types {
            var name = t.name
            if !inPlace {
                let fieldNames = t.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name)
                if let match = existing[t.name]?.first(where: { $0.fields == fieldNames && $0.kind == t.kind }) {
                    typeKeys[t.id] = match.key
                    typeDecisions.append(NoteTypeDecision(name: t.name, action: .kept, deckName: t.name))
                    continue
                }
                var number = 2
                while names.contains(name) {
                    name = "\(t.name) (\(number))"
                    number += 1
                }
                names.insert(name)
                typeDecisions.append(NoteTypeDecision(name: t.name, action: name == t.name ? .added : .copied, deckName: name))
            }
            try insert.execute([
                inPlace ? .integer(t.id) : .null, .text(name), Self.int(t.kind), Self.optional(t.stockKind.map(Int64.init)), .text(t.css),
                Self.int(t.sortField), .text(t.latexPre), .text(t.latexPost), Self.bool(t.latexSVG), .real(t.modified),
                Self.optional(t.ankiID), .text(t.ankiOptions),
            ])
            let key = db.lastInsertRowID
            typeKeys[t.id] = key
            for f in t.fields {
                try insertField.execute([
                    Self.int(f.ordinal), .text(f.name), .text(f.font), Self.int(f.fontSize), Self.bool(f.rightToLeft), Self.bool(f.sticky),
                    Self.bool(f.plainText), Self.bool(f.collapsed), Self.bool(f.excludeFromSearch), .text(f.description),
                    Self.optional(f.ankiID), .text(f.ankiOptions), .integer(key),
                ])
            }
            for m in t.templates {
                try insertTemplate.execute([
                    Self.int(m.ordinal), .text(m.name), .text(m.questionFormat), .text(m.answerFormat), .text(m.browserQuestionFormat),
                    .text(m.browserAnswerFormat), .text(m.browserFont), Self.int(m.browserFontSize), .real(m.modified),
                    Self.optional(m.ankiID), .text(m.ankiOptions), .integer(key), Self.optional(m.targetDeck.flatMap { deckKeys[$0] }),
                ])
            }
        }
    }

    /// Restoring in place: the deck's own rows of a table that have an id or a name of the file's go.
    func deleteRows(_ table: String, ids: [Int64], names: [String]) throws {
        let statement = try db.prepare("DELETE FROM \(quoteIdentifier(table)) WHERE \"pk\" = ? OR \"name\" = ?")
        for (id, name) in zip(ids, names) { try statement.execute([.integer(id), .text(name)]) }
    }

    mutating func writeTags(_ tags: [TagRecord]) throws {
        let rows = try db.prepare("SELECT \"pk\", \"name\" FROM \"Tag\" ORDER BY \"pk\"")
        while try rows.step() {
            tagKeys[rows.string(at: 1)] = rows.int64(at: 0)
            if foldedTagKeys[rows.string(at: 1).lowercased()] == nil { foldedTagKeys[rows.string(at: 1).lowercased()] = rows.int64(at: 0) }
        }
        for tag in tags {
            if inPlace, let key = tagKeys[tag.name] {
                try db.execute("UPDATE \"Tag\" SET \"collapsed\" = ? WHERE \"pk\" = ?", [Self.bool(tag.collapsed), .integer(key)])
            } else {
                _ = try tagKey(tag.name, collapsed: tag.collapsed)
            }
        }
    }

    /// The key of a tag by name: the same name, else (merging) the same name ignoring case, else a new tag.
    mutating func tagKey(_ name: String, collapsed: Bool) throws -> Int64 {
        if let key = tagKeys[name] { return key }
        if !inPlace, let key = foldedTagKeys[name.lowercased()] { return key }
        try db.execute("INSERT INTO \"Tag\" (\"name\", \"collapsed\") VALUES (?, ?)", [.text(name), Self.bool(collapsed)])
        let key = db.lastInsertRowID
        tagKeys[name] = key
        if foldedTagKeys[name.lowercased()] == nil { foldedTagKeys[name.lowercased()] = key }
        return key
    }

    mutating func writeMedia(_ media: [MediaRecord]) throws {
        for item in media {
            let file: Int64
            if let key = try db.scalar("SELECT \"pk\" FROM \"MediaFile\" WHERE \"fileName\" = ?", [.text(item.fileName)], as: Int64.self) {
                file = key
            } else {
                try db.execute("INSERT INTO \"MediaFile\" (\"fileName\", \"sha256\", \"sha1\", \"mime\", \"size\") VALUES (?, ?, ?, ?, ?)",
                               [.text(item.fileName), .text(item.sha256), .text(item.sha1), .text(item.mime), Self.int(item.size)])
                file = db.lastInsertRowID
            }
            for name in item.names {
                let row = try db.rows("SELECT \"pk\", \"file\" FROM \"MediaName\" WHERE \"name\" = ?", [.text(name)]).first
                if let row, case .integer(let key) = row[0] {
                    if case .integer(file) = row[1] {
                        mediaKeys[name] = key
                    } else if inPlace {
                        // No note refers to it yet: the name now means the file's bytes.
                        try db.execute("UPDATE \"MediaName\" SET \"file\" = ? WHERE \"pk\" = ?", [.integer(file), .integer(key)])
                        mediaKeys[name] = key
                    } else {
                        // The name means other bytes in this deck: the notes refer to the file by its own name.
                        mediaKeys[name] = try fileNameKey(item.fileName, file: file)
                    }
                } else {
                    try db.execute("INSERT INTO \"MediaName\" (\"name\", \"file\") VALUES (?, ?)", [.text(name), .integer(file)])
                    mediaKeys[name] = db.lastInsertRowID
                }
            }
        }
    }

    private func fileNameKey(_ fileName: String, file: Int64) throws -> Int64 {
        if let key = try db.scalar("SELECT \"pk\" FROM \"MediaName\" WHERE \"name\" = ?", [.text(fileName)], as: Int64.self) { return key }
        try db.execute("INSERT INTO \"MediaName\" (\"name\", \"file\") VALUES (?, ?)", [.text(fileName), .integer(file)])
        return db.lastInsertRowID
    }
}
