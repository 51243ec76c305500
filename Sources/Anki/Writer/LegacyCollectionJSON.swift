import Foundation

/// The JSON documents of a schema 11 `col` row, in the shape current Anki's schema 11 reader
/// requires (keys without a default there are always written).
struct LegacyCollectionJSON {
    let creationTime: Int64
    let modifiedMillis: Int64
    let nextNewPosition: Int64

    private var modifiedSeconds: Int64 { modifiedMillis / 1000 }

    // MARK: Note types (`col.models`)

    private struct NoteType: Encodable {
        let id: Int64
        let name: String
        let type: Int
        let mod: Int64
        let usn: Int
        let sortf: Int
        let did: Int64
        let tmpls: [Template]
        let flds: [Field]
        let css: String
        let latexPre: String
        let latexPost: String
        let latexsvg: Bool
        let req: [Requirement]
        let tags: [String]
        let vers: [String]
    }

    private struct Template: Encodable {
        let name: String
        let ord: Int
        let qfmt: String
        let afmt: String
        let bqfmt: String
        let bafmt: String
        let bfont: String
        let bsize: Int
    }

    private struct Field: Encodable {
        let name: String
        let ord: Int
        let sticky: Bool
        let rtl: Bool
        let font: String
        let size: Int
        let media: [String]
    }

    /// `[card ordinal, "any"|"all"|"none", [field ordinals]]`.
    private struct Requirement: Encodable {
        let ordinal: Int
        let kind: String
        let fields: [Int]

        func encode(to encoder: Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(ordinal)
            try container.encode(kind)
            try container.encode(fields)
        }
    }

    static let latexPre = """
        \\documentclass[12pt]{article}
        \\special{papersize=3in,5in}
        \\usepackage[utf8]{inputenc}
        \\usepackage{amssymb,amsmath}
        \\pagestyle{empty}
        \\setlength{\\parindent}{0in}
        \\begin{document}

        """

    func noteTypes(_ types: [AnkiNoteType]) -> String {
        var map: [String: NoteType] = [:]
        for type in types {
            map[String(type.id)] = NoteType(
                id: type.id, name: type.name, type: type.kind.rawValue, mod: modifiedSeconds, usn: -1,
                sortf: type.sortFieldIndex, did: 1,
                tmpls: type.templates.map {
                    Template(name: $0.name, ord: $0.ordinal, qfmt: $0.questionFormat, afmt: $0.answerFormat,
                             bqfmt: "", bafmt: "", bfont: "", bsize: 0)
                },
                flds: type.fields.map {
                    Field(name: $0.name, ord: $0.ordinal, sticky: false, rtl: false, font: "Arial", size: 20, media: [])
                },
                css: type.css, latexPre: Self.latexPre, latexPost: "\\end{document}", latexsvg: false,
                req: Self.requirements(type), tags: [], vers: [])
        }
        return Self.encode(map)
    }

    /// Which fields a card needs (Anki 2.1 recomputes these; older clients read them): for a
    /// standard type, any field its question references; for cloze, the first field.
    private static func requirements(_ type: AnkiNoteType) -> [Requirement] {
        if type.kind == .cloze { return [Requirement(ordinal: 0, kind: "any", fields: [0])] }
        return type.templates.map { template in
            let names = Set(TemplateFields.referencedFields(in: template.questionFormat))
            let ordinals = type.fields.filter { names.contains($0.name) }.map(\.ordinal)
            return Requirement(ordinal: template.ordinal, kind: ordinals.isEmpty ? "none" : "any", fields: ordinals)
        }
    }

    // MARK: Decks (`col.decks`)

    private struct Deck: Encodable {
        let id: Int64
        let mod: Int64
        let name: String
        let usn: Int
        let lrnToday: [Int]
        let revToday: [Int]
        let newToday: [Int]
        let timeToday: [Int]
        let collapsed: Bool
        let browserCollapsed: Bool
        let desc: String
        let dyn: Int
        let conf: Int64
        let extendNew: Int
        let extendRev: Int
    }

    func decks(_ decks: [AnkiDeck]) -> String {
        var map: [String: Deck] = [:]
        for deck in decks {
            map[String(deck.id)] = Deck(
                id: deck.id, mod: modifiedSeconds, name: deck.name, usn: -1, lrnToday: [0, 0], revToday: [0, 0],
                newToday: [0, 0], timeToday: [0, 0], collapsed: false, browserCollapsed: false,
                desc: deck.description, dyn: 0, conf: 1, extendNew: 0, extendRev: 0)
        }
        return Self.encode(map)
    }

    // MARK: Deck options (`col.dconf`) and configuration (`col.conf`)

    private struct DeckConfig: Encodable {
        struct New: Encodable {
            let bury: Bool, delays: [Double], initialFactor: Int, ints: [Int], order: Int, perDay: Int
        }
        struct Review: Encodable {
            let bury: Bool, ease4: Double, ivlFct: Double, maxIvl: Int, perDay: Int, hardFactor: Double
        }
        struct Lapse: Encodable {
            let delays: [Double], leechAction: Int, leechFails: Int, minInt: Int, mult: Double
        }
        let id: Int64, mod: Int64, name: String, usn: Int, maxTaken: Int, autoplay: Bool, timer: Int
        let replayq: Bool, new: New, rev: Review, lapse: Lapse, dyn: Bool
    }

    func deckConfigurations() -> String {
        let config = DeckConfig(
            id: 1, mod: 0, name: "Default", usn: 0, maxTaken: 60, autoplay: true, timer: 0, replayq: true,
            new: .init(bury: false, delays: [1, 10], initialFactor: 2500, ints: [1, 4, 0], order: 1, perDay: 20),
            rev: .init(bury: false, ease4: 1.3, ivlFct: 1, maxIvl: 36500, perDay: 200, hardFactor: 1.2),
            lapse: .init(delays: [10], leechAction: 1, leechFails: 8, minInt: 1, mult: 0),
            dyn: false)
        return Self.encode(["1": config])
    }

    private struct Configuration: Encodable {
        let schedVer: Int, sched2021: Bool, activeDecks: [Int64], curDeck: Int64, newSpread: Int
        let collapseTime: Int, timeLim: Int, estTimes: Bool, dueCounts: Bool, curModel: Int64
        let nextPos: Int64, sortType: String, sortBackwards: Bool, addToCur: Bool, dayLearnFirst: Bool
    }

    func configuration(currentNoteType: Int64) -> String {
        Self.encode(Configuration(
            schedVer: 2, sched2021: true, activeDecks: [1], curDeck: 1, newSpread: 0, collapseTime: 1200,
            timeLim: 0, estTimes: true, dueCounts: true, curModel: currentNoteType, nextPos: nextNewPosition,
            sortType: "noteFld", sortBackwards: false, addToCur: true, dayLearnFirst: false))
    }

    private static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail (no floats that are NaN, no custom throws).
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
