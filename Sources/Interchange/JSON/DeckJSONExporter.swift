import DeckDocument
import Digest
import FileSafety
import Foundation

/// Exports everything in a version 2 deck as JSON, losslessly, described by
/// `Schemas/sampledeck.schema.json` (format version 2).
///
/// Every column of every row the deck holds goes out as stored: note types with their fields
/// (and their options), templates, CSS and Anki's verbatim options; notes with GUID, id, fields
/// by name and tags; every card with its full scheduling (Anki's encodings); the deck tree with
/// descriptions and presets; the review log; media under every name. Dates are Unix seconds
/// exactly as stored (the shortest decimal that reads back to the same double), verbatim
/// options are JSON strings holding the stored text. Media bytes are inside the file (base64
/// `data`) by default, or written into a folder (``MediaPlacement/folder(_:)``) and listed by
/// name and SHA-256 only.
///
/// The output is deterministic: keys in a fixed order, rows in key order (tags and media by
/// name). ``DeckJSONImporter`` restores a file into a new deck with every id, so exporting,
/// importing and exporting again gives the same bytes.
///
/// Cost: one pass over the notes, streamed to the file (one note in memory at a time); the
/// header (note types, decks, presets, tags, media names) is read whole.
public struct DeckJSONExporter: Sendable {
    /// Where media bytes go.
    public enum MediaPlacement: Sendable, Hashable {
        /// Inside the file, base64 (`data`): the file stands alone.
        case embedded
        /// Written into this folder as `<sha256>.<ext>` (created if missing; a file there of
        /// the same name must hold the same bytes); the JSON lists them without `data`.
        case folder(URL)
    }

    /// Where media bytes go (default: inside the file).
    public var media: MediaPlacement

    /// The value of `format`.
    public static let formatName = "sampledeck"
    /// The value of `formatVersion` this exporter writes.
    public static let formatVersion = 2

    /// Creates an exporter.
    /// Called with the number of notes written so far, now and then and once at the end (for a
    /// progress bar).
    public var progress: (@Sendable (Int) -> Void)?

    public init(media: MediaPlacement = .embedded) {
        self.media = media
    }

    /// Writes the saved contents of `document` to `url` (under a temporary name, then renamed).
    /// - Throws: ``InterchangeError`` when the file or a media file can't be written (nothing
    ///   is left at `url`); ``DeckError`` when the store holds a value of the wrong type or a
    ///   media file can't be read.
    public func export(_ document: DeckDocument, to url: URL) throws {
        try document.verifyValues()
        let contents = try document.contents()
        if case .folder(let folder) = media { try writeMediaFolder(folder, contents.media, from: document) }
        let out = try OutputFile(url)
        defer { out.discard() }
        try out.write("{\n")
        try out.write("  \"format\": \(JSONText.string(Self.formatName)),\n")
        try out.write("  \"formatVersion\": \(Self.formatVersion),\n")
        try out.write("  \"title\": \(JSONText.string(contents.title)),\n")
        try out.write("  \"description\": \(JSONText.string(contents.description)),\n")
        try out.write("  \"dayZero\": \(contents.dayZero),\n")
        try out.write("  \"dayStartsAt\": \(contents.dayStartsAt),\n")
        try out.write("  \"ankiConfig\": \(JSONText.string(contents.ankiConfig)),\n")
        try writeArray("presets", contents.presets.map(Self.preset), to: out)
        try writeArray("decks", contents.decks.map(Self.deck), to: out)
        try writeArray("noteTypes", contents.noteTypes.map(Self.noteType), to: out)
        try writeArray("tags", contents.tags.map { tag in
            var o = JSONObject()
            o.string("name", tag.name)
            o.bool("collapsed", tag.collapsed)
            return o.text
        }, to: out)
        try out.write("  \"media\": [")
        for (index, item) in contents.media.enumerated() {
            try out.write(index == 0 ? "\n    " : ",\n    ")
            var o = Self.mediaObject(item)
            if case .embedded = media {
                // The name is checked, the file opened without following links and required to be regular.
                let data = try document.readMedia(named: item.fileName)
                o.raw("data", "\"" + data.base64EncodedString() + "\"")
            }
            try out.write(o.text)
        }
        try out.write(contents.media.isEmpty ? "],\n" : "\n  ],\n")
        try writeArray("detachedReviews", contents.detachedReviews.map(Self.review), to: out)
        let fieldNames = Dictionary(contents.noteTypes.map { type in
            let names = type.fields.map(\.name)
            return (type.id, Set(names).count == names.count ? names : nil)
        }, uniquingKeysWith: { first, _ in first })
        try out.write("  \"notes\": [")
        var first = true
        var written = 0
        try document.forEachNoteRecord { note in
            try out.write(first ? "\n    " : ",\n    ")
            first = false
            try out.write(Self.note(note, fieldNames: fieldNames[note.noteType] ?? nil))
            written += 1
            if written & 63 == 0 { progress?(written) }
        }
        progress?(written)
        try out.write(first ? "]\n}\n" : "\n  ]\n}\n")
        try out.commit()
    }

    private func writeArray(_ key: String, _ items: [String], to out: OutputFile) throws {
        if items.isEmpty {
            try out.write("  \(JSONText.string(key)): [],\n")
            return
        }
        try out.write("  \(JSONText.string(key)): [\n    " + items.joined(separator: ",\n    ") + "\n  ],\n")
    }

    /// Copies each media file into `folder` under its file name.
    private func writeMediaFolder(_ folder: URL, _ media: [MediaRecord], from document: DeckDocument) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw InterchangeError(.cannotCreate, path: folder.path, reason: "can't create the media folder: \(error.localizedDescription)")
        }
        for item in media {
            let target = folder.appendingPathComponent(item.fileName)
            let data = try document.readMedia(named: item.fileName)
            if (try? UntrustedFile.type(atPath: target.path)) != nil {
                // Named by its contents: a file of that name holds those bytes, or it is not ours.
                let existing = try? UntrustedFile.read(target.path)
                guard existing == data else {
                    throw InterchangeError(.cannotCreate, path: target.path, reason: "already exists with other contents")
                }
                continue
            }
            let out = try OutputFile(target)
            defer { out.discard() }
            try out.write(data)
            try out.commit()
        }
    }

    // MARK: Objects, keys in a fixed order

    static func preset(_ p: PresetRecord) -> String {
        var o = JSONObject()
        o.int("id", p.id)
        o.string("name", p.name)
        o.int("newPerDay", p.newPerDay)
        o.int("reviewsPerDay", p.reviewsPerDay)
        o.string("learningSteps", p.learningSteps)
        o.string("relearningSteps", p.relearningSteps)
        o.int("maximumInterval", p.maximumInterval)
        o.bool("usesFSRS", p.usesFSRS)
        o.string("fsrsParameters", p.fsrsParameters)
        o.double("desiredRetention", p.desiredRetention)
        o.int("startingEase", p.startingEase)
        o.int("graduatingInterval", p.graduatingInterval)
        o.int("easyInterval", p.easyInterval)
        o.double("easyBonus", p.easyBonus)
        o.double("hardMultiplier", p.hardMultiplier)
        o.double("intervalMultiplier", p.intervalMultiplier)
        o.double("lapseMultiplier", p.lapseMultiplier)
        o.int("minimumLapseInterval", p.minimumLapseInterval)
        o.int("leechThreshold", p.leechThreshold)
        o.bool("buryNewSiblings", p.buryNewSiblings)
        o.bool("buryReviewSiblings", p.buryReviewSiblings)
        o.bool("buryInterdaySiblings", p.buryInterdaySiblings)
        o.double("modified", p.modified)
        o.int("ankiID", p.ankiID)
        o.string("ankiOptions", p.ankiOptions)
        return o.text
    }

    static func deck(_ d: DeckRecord) -> String {
        var o = JSONObject()
        o.int("id", d.id)
        o.string("name", d.name)
        o.int("kind", d.kind)
        o.string("description", d.description)
        o.bool("markdownDescription", d.markdownDescription)
        o.bool("collapsed", d.collapsed)
        o.string("filterTerms", d.filterTerms)
        o.bool("reschedules", d.reschedules)
        o.double("modified", d.modified)
        o.int("ankiID", d.ankiID)
        o.string("ankiOptions", d.ankiOptions)
        o.int("preset", d.preset)
        return o.text
    }

    static func noteType(_ t: NoteTypeRecord) -> String {
        var o = JSONObject()
        o.int("id", t.id)
        o.string("name", t.name)
        o.int("kind", t.kind)
        o.int("stockKind", t.stockKind)
        o.string("css", t.css)
        o.int("sortField", t.sortField)
        o.string("latexPre", t.latexPre)
        o.string("latexPost", t.latexPost)
        o.bool("latexSVG", t.latexSVG)
        o.double("modified", t.modified)
        o.int("ankiID", t.ankiID)
        o.string("ankiOptions", t.ankiOptions)
        o.raw("fields", "[" + t.fields.map { f in
            var o = JSONObject()
            o.int("ordinal", f.ordinal)
            o.string("name", f.name)
            o.string("font", f.font)
            o.int("fontSize", f.fontSize)
            o.bool("rightToLeft", f.rightToLeft)
            o.bool("sticky", f.sticky)
            o.bool("plainText", f.plainText)
            o.bool("collapsed", f.collapsed)
            o.bool("excludeFromSearch", f.excludeFromSearch)
            o.string("description", f.description)
            o.int("ankiID", f.ankiID)
            o.string("ankiOptions", f.ankiOptions)
            return o.text
        }.joined(separator: ", ") + "]")
        o.raw("templates", "[" + t.templates.map { m in
            var o = JSONObject()
            o.int("ordinal", m.ordinal)
            o.string("name", m.name)
            o.string("questionFormat", m.questionFormat)
            o.string("answerFormat", m.answerFormat)
            o.string("browserQuestionFormat", m.browserQuestionFormat)
            o.string("browserAnswerFormat", m.browserAnswerFormat)
            o.string("browserFont", m.browserFont)
            o.int("browserFontSize", m.browserFontSize)
            o.double("modified", m.modified)
            o.int("ankiID", m.ankiID)
            o.string("ankiOptions", m.ankiOptions)
            o.int("targetDeck", m.targetDeck)
            return o.text
        }.joined(separator: ", ") + "]")
        return o.text
    }

    static func mediaObject(_ item: MediaRecord) -> JSONObject {
        var o = JSONObject()
        o.string("fileName", item.fileName)
        o.string("sha256", item.sha256)
        o.string("sha1", item.sha1)
        o.string("mime", item.mime)
        o.int("size", item.size)
        o.raw("names", JSONText.array(item.names))
        return o
    }

    static func review(_ r: ReviewRecord) -> String {
        var o = JSONObject()
        o.int("time", r.time)
        o.int("rating", r.rating)
        o.int("interval", r.interval)
        o.int("lastInterval", r.lastInterval)
        o.int("easeFactor", r.easeFactor)
        o.int("duration", r.duration)
        o.int("kind", r.kind)
        o.int("ankiID", r.ankiID)
        return o.text
    }

    /// A note on one line; `fieldNames` nil writes the fields as an array (a note type whose
    /// field names are not unique).
    static func note(_ n: NoteRecord, fieldNames: [String]?) -> String {
        var o = JSONObject()
        o.int("id", n.id)
        o.string("guid", n.guid)
        o.int("noteType", n.noteType)
        if let fieldNames, fieldNames.count == n.fields.count {
            o.raw("fields", "{" + zip(fieldNames, n.fields).map { "\(JSONText.string($0)): \(JSONText.string($1))" }.joined(separator: ", ") + "}")
        } else {
            o.raw("fields", JSONText.array(n.fields))
        }
        o.string("sortText", n.sortText)
        o.double("created", n.created)
        o.double("modified", n.modified)
        o.int("ankiID", n.ankiID)
        o.raw("tags", JSONText.array(n.tags))
        o.raw("media", JSONText.array(n.media))
        o.raw("cards", "[" + n.cards.map { c in
            var o = JSONObject()
            o.int("id", c.id)
            o.int("ordinal", c.ordinal)
            o.int("deck", c.deck)
            o.int("originalDeck", c.originalDeck)
            o.int("type", c.type)
            o.int("queue", c.queue)
            o.int("due", c.due)
            o.int("interval", c.interval)
            o.int("easeFactor", c.easeFactor)
            o.int("repetitions", c.repetitions)
            o.int("lapses", c.lapses)
            o.int("remainingSteps", c.remainingSteps)
            o.int("originalDue", c.originalDue)
            o.int("flag", c.flag)
            o.double("stability", c.stability)
            o.double("difficulty", c.difficulty)
            o.double("desiredRetention", c.desiredRetention)
            o.double("decay", c.decay)
            o.int("lastReview", c.lastReview)
            o.int("originalPosition", c.originalPosition)
            o.string("customData", c.customData)
            o.double("created", c.created)
            o.double("modified", c.modified)
            o.int("ankiID", c.ankiID)
            o.string("ankiOptions", c.ankiOptions)
            o.raw("reviews", "[" + c.reviews.map(review).joined(separator: ", ") + "]")
            return o.text
        }.joined(separator: ", ") + "]")
        return o.text
    }
}

/// A JSON object written key by key in the order given.
struct JSONObject {
    private var parts: [String] = []
    var text: String { "{" + parts.joined(separator: ", ") + "}" }
    mutating func raw(_ key: String, _ value: String) { parts.append("\(JSONText.string(key)): \(value)") }
    mutating func string(_ key: String, _ value: String) { raw(key, JSONText.string(value)) }
    mutating func bool(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }
    mutating func int(_ key: String, _ value: some BinaryInteger) { raw(key, "\(value)") }
    mutating func int(_ key: String, _ value: (some BinaryInteger)?) { raw(key, value.map { "\($0)" } ?? "null") }
    mutating func double(_ key: String, _ value: Double) { raw(key, JSONText.number(value)) }
    mutating func double(_ key: String, _ value: Double?) { raw(key, value.map(JSONText.number) ?? "null") }
}
