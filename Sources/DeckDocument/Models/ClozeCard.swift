import Foundation
import Persistence

/// A cloze-deletion card: ``text`` holds the sentence with `{{c1::gaps}}`; `front` is the
/// text with gaps shown as `[...]`, `back` any extra information.
public final class ClozeCard: Card {
    /// The cloze text, e.g. `Paris is the capital of {{c1::France}}`.
    public var text: String = ""

    public override class var schemaMetadata: [Schema.PropertyMetadata] {
        super.schemaMetadata + [.attribute("text", \ClozeCard.text)]
    }

    public required init() {
        super.init()
        kind = .cloze
    }

    public override init(front: String, back: String, created: Date = Date()) {
        super.init(front: front, back: back, created: created)
        kind = .cloze
        text = front
    }
}
