import Foundation
import Persistence

/// The kind of a card; stored in the `kind` column and mirrored by the card's subclass.
public enum CardKind: String, CaseIterable, Codable, Sendable {
    /// Front and back; reviewed front first.
    case basic
    /// Reviewed in both directions.
    case reversible
    /// A cloze deletion: ``ClozeCard/text`` holds `{{c1::…}}` gaps.
    case cloze
}

/// A flash card: the base model of ``BasicCard``, ``ReversibleCard`` and ``ClozeCard``,
/// which share the `Card` table (single-table inheritance, `entity` discriminator).
///
/// ``id`` is the stable number users see (`deck edit <deck> 12`): the row's primary key,
/// negative (temporary) until the first save.
public class Card: PersistentModel, WillSaveHook {
    // Stored attributes are `final`: a non-final class property is reached through its
    // accessors (a subclass could override it), which keeps the persistence layer from
    // reading and writing it in place.
    public final var kind: CardKind = .basic
    public final var front: String = ""
    public final var back: String = ""
    // Set by the initializers: one clock reading per card (a default value here would read
    // the clock again for each property, before the initializer overwrites it).
    public final var created: Date
    public final var modified: Date
    /// When the card is next due for review; nil for a new card.
    public final var due: Date? = nil
    /// The current review interval in days.
    public final var interval: Int = 0
    /// The ease factor (2.5 is Anki's default starting ease).
    public final var ease: Double = 2.5
    public final var repetitions: Int = 0
    public final var lapses: Int = 0
    /// Anki's note GUID, kept so importing the same package twice does not duplicate cards.
    public final var ankiGUID: String? = nil
    /// The deck path inside an imported collection (`Languages::French`), if any.
    public final var deckPath: String? = nil
    /// When false, saving leaves ``modified`` as set (importers keep the source's dates).
    /// Not stored.
    public final var stampsModificationDate = true

    public var tags: [Tag] {
        get { getValue(forKey: \.tags) }
        set { setValue(forKey: \.tags, to: newValue) }
    }
    public var media: [MediaReference] {
        get { getValue(forKey: \.media) }
        set { setValue(forKey: \.media, to: newValue) }
    }
    /// The review history; deleted with the card.
    public var reviews: [Review] {
        get { getValue(forKey: \.reviews) }
        set { setValue(forKey: \.reviews, to: newValue) }
    }

    /// The stable numeric card id (the row's primary key).
    public var id: Int64 { persistentModelID.primaryKey }

    public class var schemaMetadata: [Schema.PropertyMetadata] {
        [
            // No index: `kind` mirrors the subclass, whose `entity` discriminator is indexed.
            .attribute("kind", \Card.kind),
            .attribute("front", \Card.front),
            .attribute("back", \Card.back),
            .attribute("created", \Card.created, options: [.index]),
            .attribute("modified", \Card.modified),
            // `due` and `ankiGUID` are indexed by the store, over the rows that have a value
            // only (``DeckStore/sparseIndexDDL``): most cards of a CSV import have neither.
            .attribute("due", \Card.due),
            .attribute("interval", \Card.interval),
            .attribute("ease", \Card.ease),
            .attribute("repetitions", \Card.repetitions),
            .attribute("lapses", \Card.lapses),
            .attribute("ankiGUID", \Card.ankiGUID),
            .attribute("deckPath", \Card.deckPath),
            .relationship("tags", \Card.tags, inverse: \Tag.cards),
            .relationship("media", \Card.media, inverse: \MediaReference.cards),
            .relationship("reviews", \Card.reviews, deleteRule: .cascade, inverse: \Review.card),
        ]
    }
    public let persistentBackingData = BackingData()

    public required init() {
        let now = Date()
        created = now
        modified = now
    }

    /// Creates a card; prefer the subclass of its kind (``DeckDocument/addCard(kind:front:back:tags:)`` picks it).
    public init(front: String, back: String, created: Date = Date()) {
        self.front = front
        self.back = back
        self.created = created
        self.modified = created
    }

    public func willSave() {
        if stampsModificationDate { modified = Date() }
    }
}
