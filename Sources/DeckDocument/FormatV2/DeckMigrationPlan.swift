import CardTemplates
import Foundation
import Persistence
import SQLite

/// Format version 1's models (the classes the program still writes), as a versioned schema.
public enum DeckSchemaV1: VersionedSchema {
    public static let versionIdentifier = Schema.Version(1, 0, 0)
    public static var models: [any PersistentModel.Type] { DeckStore.modelTypes }
}

/// The deck store's migration plan: version 1 (cards of three kinds) to version 2 (note types,
/// notes and cards; docs/FORMAT.md, "Migration"), one custom stage, then revision 2.0 to 2.1,
/// a lightweight one; all the stages a store needs run in one transaction.
///
/// `willMigrate` reads every v1 card, review and media row (on the v1 models); the persistence
/// layer then restructures the tables (the `Card`, `Review`, `Tag` and `DeckInfo` rows keep their
/// keys; `MediaReference`, `Card_tags` and `Card_media` go); `didMigrate` builds the note types,
/// notes, decks, preset and media of version 2 and writes each card's and review's values in
/// version 2's encodings.
public enum DeckMigrationPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [DeckSchemaV1.self, DeckSchemaV2_0.self, DeckSchemaV2.self] }
    public static var stages: [MigrationStage] { [version1To2(), version2_0To2_1] }

    /// Revision 2.0 → 2.1 (docs/FORMAT.md, "Revisions of format version 2"): the tables and rows
    /// stay; the indexes `Card_note` and `Card_deck` go (the layout of 2.1 has none for those keys,
    /// and the persistence layer drops an index the new layout lacks). The store's own partial
    /// indexes are dropped with them and made again by ``DeckStoreV2/install(_:)``.
    static let version2_0To2_1 = MigrationStage.lightweight(fromVersion: DeckSchemaV2_0.self, toVersion: DeckSchemaV2.self)

    /// Where day-numbered due values of a migrated deck start: 1970-01-01 04:00 UTC (v1 kept
    /// dates, not days, so any origin works; this one puts the day boundary at Anki's default hour).
    public static let migratedDayZero: Int64 = 4 * 3600

    /// The v1→v2 stage. Each use of ``stages`` makes a new one, whose two closures share what
    /// `willMigrate` read.
    static func version1To2() -> MigrationStage {
        let carried = Version1Contents(dayZero: migratedDayZero)
        return .custom(fromVersion: DeckSchemaV1.self, toVersion: DeckSchemaV2_0.self,
                       willMigrate: { context in try carried.read(context) },
                       didMigrate: { context in try carried.write(context) })
    }
}

/// The stages a writer's open runs: the revisions of format version 2 (2.0 → 2.1), nothing
/// else. A store that records version 1 (whatever its manifest says) is refused there: only
/// `deck migrate` runs ``DeckMigrationPlan``'s stage from version 1.
public enum DeckRevisionPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [DeckSchemaV2_0.self, DeckSchemaV2.self] }
    public static var stages: [MigrationStage] { [DeckMigrationPlan.version2_0To2_1] }
}

/// Version 1's card and review models (the names `Card` and `Review` are taken inside ``Version1Contents``).
typealias Version1CardModel = Card
typealias Version1ReviewModel = Review

/// What a v1 store holds, read before its tables change and written into version 2's.
final class Version1Contents {
    struct Card {
        var id: Int64, kind: CardKind, front: String, back: String, text: String?
        var created: Date, modified: Date, due: Date?, interval: Int, ease: Double, repetitions: Int, lapses: Int
        var ankiGUID: String?, deckPath: String?, tags: [String], media: [String]
    }
    struct Review { var id: Int64, card: Int64?, date: Date, ease: Int, interval: Int, duration: Double }
    struct Media { var fileName: String, originalName: String, sha256: String, sha1: String?, mime: String, size: Int }

    let dayZero: Int64
    var cards: [Card] = []
    var reviews: [Review] = []
    var media: [Media] = []

    init(dayZero: Int64) { self.dayZero = dayZero }

    // MARK: Reading version 1

    func read(_ context: ModelContext) throws {
        let v1Cards = try context.fetch(FetchDescriptor<Version1CardModel>()).sorted { $0.id < $1.id }
        cards = v1Cards.map { card in
            Card(id: card.id, kind: card.kind, front: card.front, back: card.back, text: (card as? ClozeCard)?.text,
                 created: card.created, modified: card.modified, due: card.due, interval: card.interval, ease: card.ease,
                 repetitions: card.repetitions, lapses: card.lapses, ankiGUID: card.ankiGUID, deckPath: card.deckPath,
                 tags: card.tags.map(\.name).sorted(), media: card.media.map(\.fileName).sorted())
        }
        let v1Reviews = try context.fetch(FetchDescriptor<Version1ReviewModel>())
        reviews = v1Reviews.map {
            Review(id: $0.persistentModelID.primaryKey, card: $0.card?.id, date: $0.date, ease: $0.ease, interval: $0.interval, duration: $0.duration)
        }
        // Reviews are written anew by `write` (their values change units); their keys are not
        // user-visible, the order of `time` is kept.
        for review in v1Reviews { context.delete(review) }
        media = try context.fetch(FetchDescriptor<MediaReference>()).map {
            Media(fileName: $0.fileName, originalName: $0.originalName, sha256: $0.sha256, sha1: $0.sha1, mime: $0.mime, size: $0.size)
        }
        // Version 2's `due` is NOT NULL: the restructuring gives new cards (NULL in v1) the
        // model's default, 0, which `write` replaces with their position.
    }

    // MARK: Writing version 2

    typealias V2 = DeckSchemaV2

    func write(_ context: ModelContext) throws {
        let now = Date()
        for info in try context.fetch(FetchDescriptor<V2.DeckInfo>()) {
            info.dayZero = dayZero
            info.dayStartsAt = 4
        }
        let preset = V2.Preset(name: "Default")
        context.insert(preset)
        var decks: [String: V2.Deck] = [:]
        func deck(_ path: String) -> V2.Deck {
            if let existing = decks[path] { return existing }
            let levels = path.components(separatedBy: "::")
            if levels.count > 1 { _ = deck(levels.dropLast().joined(separator: "::")) }
            let made = V2.Deck(name: path)
            made.preset = preset
            made.modified = now
            context.insert(made)
            decks[path] = made
            return made
        }
        _ = deck("Default")

        var noteTypes: [CardKind: V2.NoteType] = [:]
        func noteType(_ kind: CardKind) -> V2.NoteType {
            if let existing = noteTypes[kind] { return existing }
            let made = StockNoteTypes.make(kind, in: context, modified: now)
            noteTypes[kind] = made
            return made
        }

        var tags: [String: V2.Tag] = [:]
        for tag in try context.fetch(FetchDescriptor<V2.Tag>()) { tags[tag.name] = tag }

        var names: [String: V2.MediaName] = [:]   // by v1 fileName
        var taken: Set<String> = []
        for item in media {
            let file = V2.MediaFile()
            file.fileName = item.fileName
            file.sha256 = item.sha256
            file.sha1 = item.sha1 ?? ""
            file.mime = item.mime
            file.size = item.size
            context.insert(file)
            // Two v1 files with one original name: the second keeps its content-addressed name.
            let wanted = item.originalName.isEmpty ? item.fileName : item.originalName
            let name = V2.MediaName(name: taken.contains(wanted) ? item.fileName : wanted)
            taken.insert(name.name)
            name.file = file
            context.insert(name)
            names[item.fileName] = name
        }

        var stored: [Int64: V2.Card] = [:]
        for card in try context.fetch(FetchDescriptor<V2.Card>()) { stored[card.id] = card }
        for old in cards {
            guard let first = stored[old.id] else {
                throw MigrationFault("card \(old.id) is missing after the tables were restructured")
            }
            let fields: [String] = old.kind == .cloze ? [old.text ?? old.front, old.back] : [old.front, old.back]
            let note = V2.Note(guid: old.ankiGUID ?? AnkiGUID.random(), fields: fields, created: old.created)
            note.modified = old.modified
            note.sortText = FieldText.plainText(fromHTML: fields[0])
            note.noteType = noteType(old.kind)
            note.tags = old.tags.compactMap { tags[$0] }
            note.media = old.media.compactMap { names[$0] }
            context.insert(note)

            let ordinals: [Int] = switch old.kind {
            case .basic: [0]
            case .reversible: [0, 1]
            case .cloze: Cloze.numbers(in: fields[0]).sorted().map { min($0 - 1, NoteLayout.maximumClozeOrdinal) }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
            }
            let target = deck(old.deckPath.flatMap { $0.isEmpty ? nil : $0 } ?? "Default")
            for (index, ordinal) in (ordinals.isEmpty ? [0] : ordinals).enumerated() {
                let card: V2.Card
                if index == 0 { card = first } else {
                    card = V2.Card(ordinal: ordinal, created: old.created)
                    context.insert(card)
                }
                card.ordinal = ordinal
                card.note = note
                card.deck = target
                try schedule(card, from: old)
            }
        }

        var byCard: [Int64: [Review]] = [:]
        for review in reviews { if let card = review.card { byCard[card, default: []].append(review) } }
        var last: [Int64: Int] = [:]   // review pk → the interval before it
        for (_, list) in byCard {
            var previous = 0
            for review in list.sorted(by: { ($0.date, $0.id) < ($1.date, $1.id) }) {
                last[review.id] = previous
                previous = review.interval
            }
        }
        for old in reviews.sorted(by: { ($0.date, $0.id) < ($1.date, $1.id) }) {
            guard let cardID = old.card, let card = stored[cardID] else { continue }
            guard let time = Self.checkedInt64(old.date.timeIntervalSince1970 * 1000),
                  let duration = Self.checkedInt64(old.duration * 1000), (0...86_400_000).contains(duration) else {
                throw MigrationFault("review \(old.id) has a date or duration out of range")
            }
            guard (0...4).contains(old.ease) else { throw MigrationFault("review \(old.id) has the answer \(old.ease), not 0–4") }
            let row = V2.Review(time: time, rating: old.ease, interval: old.interval, lastInterval: last[old.id] ?? 0,
                                easeFactor: 0, duration: Int(duration), kind: .review)
            row.card = card
            context.insert(row)
        }
    }

    /// v1 scheduling in version 2's encodings (docs/FORMAT.md, "Migration").
    func schedule(_ card: V2.Card, from old: Card) throws {
        card.created = old.created
        card.modified = old.modified
        card.interval = old.interval
        card.repetitions = old.repetitions
        card.lapses = old.lapses
        if let due = old.due {
            guard let seconds = Self.checkedInt64(due.timeIntervalSince1970.rounded(.down)),
                  (-1_000_000_000_000...1_000_000_000_000).contains(seconds),
                  let factor = Self.checkedInt64(old.ease * 1000), (0...100_000).contains(factor) else {
                throw MigrationFault("card \(old.id) has a due date or ease out of range")
            }
            let (offset, overflow) = seconds.subtractingReportingOverflow(dayZero)
            guard !overflow else { throw MigrationFault("card \(old.id) has a due date out of range") }
            card.type = .review
            card.queue = .review
            // Whole days, rounded down (a due time before day 0 gives a negative day).
            card.due = offset >= 0 ? offset / 86_400 : -((-offset + 86_399) / 86_400)
            card.easeFactor = Int(factor)
        } else {
            card.type = .new
            card.queue = .new
            card.due = old.id
            card.easeFactor = 0
        }
    }

    /// `value` rounded to an integer, or nil when it is not finite or does not fit in 64 bits.
    static func checkedInt64(_ value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        return Int64(exactly: value.rounded())
    }
}

/// A reason the v1→v2 migration can't go on.
struct MigrationFault: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Anki's stock note types that v1's kinds become, as current Anki creates them.
enum StockNoteTypes {
    static let css = """
        .card {
            font-family: arial;
            font-size: 20px;
            text-align: center;
            color: black;
            background-color: white;
        }

        """
    static let clozeCSS = css + """
        .cloze {
            font-weight: bold;
            color: blue;
        }
        .nightMode .cloze {
            color: lightblue;
        }

        """

    static func make(_ kind: CardKind, in context: ModelContext, modified: Date) -> DeckSchemaV2.NoteType {
        typealias V2 = DeckSchemaV2
        let type: V2.NoteType
        let fieldNames: [String]
        let templates: [(String, String, String)]
        switch kind {
        case .basic:
            type = V2.NoteType(name: "Basic", kind: .standard, stockKind: .basic, css: css)
            fieldNames = ["Front", "Back"]
            templates = [("Card 1", "{{Front}}", "{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}")]
        case .reversible:
            type = V2.NoteType(name: "Basic (and reversed card)", kind: .standard, stockKind: .basicAndReversed, css: css)
            fieldNames = ["Front", "Back"]
            templates = [("Card 1", "{{Front}}", "{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}"),
                         ("Card 2", "{{Back}}", "{{FrontSide}}\n\n<hr id=answer>\n\n{{Front}}")]
        case .cloze:
            type = V2.NoteType(name: "Cloze", kind: .cloze, stockKind: .cloze, css: clozeCSS)
            fieldNames = ["Text", "Back Extra"]
            templates = [("Cloze", "{{cloze:Text}}", "{{cloze:Text}}<br>\n{{Back Extra}}")]
        }
        type.modified = modified
        context.insert(type)
        for (ordinal, name) in fieldNames.enumerated() {
            let field = V2.NoteField(ordinal: ordinal, name: name)
            field.noteType = type
            context.insert(field)
        }
        for (ordinal, template) in templates.enumerated() {
            let made = V2.CardTemplate(ordinal: ordinal, name: template.0, questionFormat: template.1, answerFormat: template.2)
            made.modified = modified
            made.noteType = type
            context.insert(made)
        }
        return type
    }
}

/// Anki's note GUIDs: a random 64-bit number in Anki's base-91 alphabet.
enum AnkiGUID {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~")
    static let alphabetBytes = Array(alphabet.map { $0.asciiValue ?? 0 })

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    static func random(using generator: inout some RandomNumberGenerator) -> String {
        encode(generator.next())
    }

    /// `value` in base 91, most significant digit first, without leading zeros (Anki's `base91`).
    static func encode(_ value: UInt64) -> String {
        // 91^10 > 2^64: at most 10 digits.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { buffer in
            var value = value
            var start = 10
            repeat {
                start -= 1
                buffer[start] = alphabetBytes[Int(value % 91)]
                value /= 91
            } while value > 0
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<10]), as: UTF8.self)
        }
    }

    /// Random numbers for the GUIDs of a bulk import: xoshiro256** seeded from the system's
    /// generator, which makes a system call per number (a tenth of a CSV import's time when each
    /// GUID drew from it). As random as Anki's own GUIDs (Python's Mersenne Twister); not for secrets.
    struct FastRandom: RandomNumberGenerator {
        private var state: (UInt64, UInt64, UInt64, UInt64)

        init() {
            var system = SystemRandomNumberGenerator()
            state = (system.next(), system.next(), system.next(), system.next())
            // The all-zero state repeats itself forever.
            if state == (0, 0, 0, 0) { state.0 = 0x9E37_79B9_7F4A_7C15 }
        }

        mutating func next() -> UInt64 {
            let result = (state.1 &* 5).rotatedLeft(by: 7) &* 9
            let t = state.1 << 17
            state.2 ^= state.0
            state.3 ^= state.1
            state.1 ^= state.2
            state.0 ^= state.3
            state.2 ^= t
            state.3 = state.3.rotatedLeft(by: 45)
            return result
        }
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(by count: UInt64) -> UInt64 { (self << count) | (self >> (64 - count)) }
}
