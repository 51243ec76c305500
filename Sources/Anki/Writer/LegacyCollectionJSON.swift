import Foundation

/// The JSON documents of a schema 11 `col` row, in the shape current Anki's schema 11 reader
/// requires (keys without a default there are always written).
struct LegacyCollectionJSON {
    let creationTime: Int64
    let modifiedMillis: Int64
    let nextNewPosition: Int64

    /// Whether a modification time of 0 means "now" (values built for a new package) rather
    /// than a stored 0 (values exported as they are).
    var stampsZeroTimes = true

    private var modifiedSeconds: Int64 { modifiedMillis / 1000 }

    private func stamp(_ seconds: Int64) -> Int64 { seconds != 0 || !stampsZeroTimes ? seconds : modifiedSeconds }

    // MARK: Note types (`col.models`)

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

    /// `col.models`: each type's ``AnkiNoteType/options`` (verbatim), with every named value
    /// laid over them under its schema 11 key; fields and templates likewise.
    func noteTypes(_ types: [AnkiNoteType]) throws(UnencodableJSON) -> String {
        var map: [String: Any] = [:]
        for type in types { map[String(type.id)] = noteTypeObject(type) }
        return try Self.serialize(map)
    }

    /// One note type of `col.models`.
    func noteTypeObject(_ type: AnkiNoteType) -> [String: Any] {
        var object = Self.jsonObject(type.options)
        object["id"] = type.id
        object["name"] = type.name
        object["type"] = type.kind.rawValue
        object["mod"] = stamp(type.modified)
        object["sortf"] = type.sortFieldIndex
        object["css"] = type.css
        object["latexPre"] = type.latexPre
        object["latexPost"] = type.latexPost
        object["latexsvg"] = type.latexSVG
        object["originalStockKind"] = type.stockKind.rawValue
        // A type made here gets the keys older Anki versions expect; one read from Anki (its kept
        // options say so) gets exactly the keys it had.
        let fromAnki = !Self.jsonObject(type.options).isEmpty
        for (key, value) in [("usn", -1 as Any), ("did", 1 as Any), ("tags", [String]() as Any), ("vers", [String]() as Any)]
        where object[key] == nil && (!fromAnki || key == "usn") {
            object[key] = value
        }
        // Anki's schema-11 reader requires `did`; Anki writes null for "none".
        if object["did"] == nil { object["did"] = NSNull() }
        if object["req"] == nil { object["req"] = Self.requirements(type).map { [$0.ordinal, $0.kind, $0.fields] as [Any] } }
        object["flds"] = type.fields.map { field -> [String: Any] in
            var entry = Self.jsonObject(field.options)
            entry["name"] = field.name
            entry["ord"] = field.ordinal
            entry["font"] = field.font
            entry["size"] = field.fontSize
            entry["rtl"] = field.rightToLeft
            entry["sticky"] = field.sticky
            entry["plainText"] = field.plainText
            entry["collapsed"] = field.collapsed
            entry["excludeFromSearch"] = field.excludeFromSearch
            entry["description"] = field.description
            if let id = field.id { entry["id"] = id }
            if entry["media"] == nil && !fromAnki { entry["media"] = [String]() }
            return entry
        }
        object["tmpls"] = type.templates.map { template -> [String: Any] in
            var entry = Self.jsonObject(template.options)
            // Schema 18 keeps a template's update number in its row (schema 11 has none).
            entry["usn"] = nil
            entry["name"] = template.name
            entry["ord"] = template.ordinal
            entry["qfmt"] = template.questionFormat
            entry["afmt"] = template.answerFormat
            entry["bqfmt"] = template.browserQuestionFormat
            entry["bafmt"] = template.browserAnswerFormat
            entry["bfont"] = template.browserFont
            entry["bsize"] = template.browserFontSize
            entry["did"] = template.targetDeckID != 0 ? template.targetDeckID as Any : NSNull()
            if let id = template.id { entry["id"] = id }
            return entry
        }
        return object
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

    /// `col.decks`: each deck's ``AnkiDeck/options`` (verbatim) with the named values laid
    /// over them; a filtered deck has `dyn` 1, `terms` and `resched`, a normal one `conf`.
    func decks(_ decks: [AnkiDeck]) throws(UnencodableJSON) -> String {
        var map: [String: Any] = [:]
        for deck in decks { map[String(deck.id)] = deckObject(deck) }
        return try Self.serialize(map)
    }

    /// One deck of `col.decks`.
    func deckObject(_ deck: AnkiDeck) -> [String: Any] {
        var object = Self.jsonObject(deck.options)
        object["id"] = deck.id
        object["name"] = deck.name
        object["mod"] = stamp(deck.modified)
        object["desc"] = deck.description
        object["md"] = deck.markdownDescription
        object["collapsed"] = deck.collapsed
        var defaults: [(String, Any)] = [("usn", -1), ("lrnToday", [0, 0]), ("revToday", [0, 0]), ("newToday", [0, 0]),
                                         ("timeToday", [0, 0]), ("browserCollapsed", false)]
        if deck.isFiltered {
            object["dyn"] = 1
            object["resched"] = deck.reschedules
            object["terms"] = deck.filterTerms.map { [$0.search, $0.limit, $0.order] as [Any] }
            for key in ["conf", "extendNew", "extendRev"] { object[key] = nil }
            defaults += [("separate", true), ("delays", NSNull()), ("previewDelay", 0)]
        } else {
            object["dyn"] = 0
            object["conf"] = deck.presetID
            for key in ["terms", "resched"] { object[key] = nil }
            defaults += [("extendNew", 0), ("extendRev", 0)]
        }
        for (key, value) in defaults where object[key] == nil { object[key] = value }
        return object
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

    /// `col.dconf`: Anki's default (id 1) unless replaced, then each preset: Anki's defaults,
    /// its ``AnkiPreset/options`` laid over them (nested objects key by key), its named values over those.
    func deckConfigurations(_ presets: [AnkiPreset]) throws(UnencodableJSON) -> String {
        try Self.serialize(deckConfigurationObjects(presets))
    }

    /// `col.dconf` as objects by id.
    func deckConfigurationObjects(_ presets: [AnkiPreset]) -> [String: [String: Any]] {
        let defaults = Self.object(defaultDeckConfig())
        var map: [String: [String: Any]] = ["1": defaults as? [String: Any] ?? [:]]
        for preset in presets {
            guard var object = Self.merged(Self.parse(preset.options), over: defaults) as? [String: Any] else { continue }
            func section(_ key: String, _ body: (inout [String: Any]) -> Void) {
                var inner = object[key] as? [String: Any] ?? [:]
                body(&inner)
                object[key] = inner
            }
            object["id"] = preset.id
            object["name"] = preset.name
            object["mod"] = stamp(preset.modified)
            if object["usn"] == nil { object["usn"] = -1 }
            object["dyn"] = false
            section("new") { new in
                new["perDay"] = preset.newPerDay
                new["delays"] = preset.learningSteps
                new["initialFactor"] = preset.startingEase
                let third = (new["ints"] as? [NSNumber]).flatMap { $0.count > 2 ? $0[2].intValue : nil } ?? 0
                new["ints"] = [preset.graduatingInterval, preset.easyInterval, third]
                new["bury"] = preset.buryNewSiblings
            }
            section("rev") { rev in
                rev["perDay"] = preset.reviewsPerDay
                rev["maxIvl"] = preset.maximumInterval
                rev["ease4"] = preset.easyBonus
                rev["hardFactor"] = preset.hardMultiplier
                rev["ivlFct"] = preset.intervalMultiplier
                rev["bury"] = preset.buryReviewSiblings
            }
            section("lapse") { lapse in
                lapse["delays"] = preset.relearningSteps
                lapse["mult"] = preset.lapseMultiplier
                lapse["minInt"] = preset.minimumLapseInterval
                lapse["leechFails"] = preset.leechThreshold
            }
            object["buryInterdayLearning"] = preset.buryInterdaySiblings
            object["desiredRetention"] = preset.desiredRetention
            // The weights under the key of their FSRS version (21 FSRS-6, 19 FSRS-5, 17 FSRS-4.5).
            switch preset.fsrsParameters.count {
            case 0: break
            case 17: object["fsrsWeights"] = preset.fsrsParameters
            case 19: object["fsrsParams5"] = preset.fsrsParameters
            default: object["fsrsParams6"] = preset.fsrsParameters
            }
            map[String(preset.id)] = object
        }
        return map
    }

    private func defaultDeckConfig() -> DeckConfig {
        DeckConfig(
            id: 1, mod: 0, name: "Default", usn: 0, maxTaken: 60, autoplay: true, timer: 0, replayq: true,
            new: .init(bury: false, delays: [1, 10], initialFactor: 2500, ints: [1, 4, 0], order: 1, perDay: 20),
            rev: .init(bury: false, ease4: 1.3, ivlFct: 1, maxIvl: 36500, perDay: 200, hardFactor: 1.2),
            lapse: .init(delays: [10], leechAction: 1, leechFails: 8, minInt: 1, mult: 0),
            dyn: false)
    }

    /// `col.tags`: every tag the notes use, with its update sequence number.
    func tags(_ names: Set<String>) throws(UnencodableJSON) -> String {
        try Self.serialize(Dictionary(uniqueKeysWithValues: names.map { ($0, 0 as Any) }))
    }

    private struct Configuration: Encodable {
        let schedVer: Int, sched2021: Bool, activeDecks: [Int64], curDeck: Int64, newSpread: Int
        let collapseTime: Int, timeLim: Int, estTimes: Bool, dueCounts: Bool, curModel: Int64
        let nextPos: Int64, sortType: String, sortBackwards: Bool, addToCur: Bool, dayLearnFirst: Bool
    }

    func configuration(currentNoteType: Int64, over given: String? = nil, replacingDefaults: Bool = false) throws(UnencodableJSON) -> String {
        try Self.serialize(configurationObject(currentNoteType: currentNoteType, over: given, replacingDefaults: replacingDefaults))
    }

    /// `col.conf` as an object (schema 18's `config` rows, key by key): `given` laid over the
    /// defaults, or with `replacingDefaults` (a whole collection's configuration) `given` alone.
    func configurationObject(currentNoteType: Int64, over given: String? = nil, replacingDefaults: Bool = false) -> [String: Any] {
        if replacingDefaults, var whole = Self.parse(given) as? [String: Any] {
            if let next = whole["nextPos"] as? NSNumber, next.int64Value >= nextNewPosition { return whole }
            whole["nextPos"] = nextNewPosition
            return whole
        }
        let base = Self.object(Configuration(
            schedVer: 2, sched2021: true, activeDecks: [1], curDeck: 1, newSpread: 0, collapseTime: 1200,
            timeLim: 0, estTimes: true, dueCounts: true, curModel: currentNoteType, nextPos: nextNewPosition,
            sortType: "noteFld", sortBackwards: false, addToCur: true, dayLearnFirst: false))
        guard var merged = Self.merged(Self.parse(given), over: base) as? [String: Any] else { return base as? [String: Any] ?? [:] }
        // The next new-card position must lie past every new card written.
        if let given = merged["nextPos"] as? NSNumber, given.int64Value < nextNewPosition { merged["nextPos"] = nextNewPosition }
        if merged["nextPos"] == nil { merged["nextPos"] = nextNewPosition }
        return merged
    }

    /// The JSON object of `text`, or an empty one.
    private static func jsonObject(_ text: String) -> [String: Any] {
        parse(text) as? [String: Any] ?? [:]
    }

    // MARK: JSON objects

    /// An encodable value as a JSON object tree (`[String: Any]`, `[Any]`, numbers, strings, bools).
    private static func object(_ value: some Encodable) -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail (no floats that are NaN, no custom throws).
        guard let data = try? encoder.encode(value), let tree = try? JSONSerialization.jsonObject(with: data) else { return [String: Any]() }
        return tree
    }

    /// The JSON text `json` as a tree, nil when absent or not JSON.
    static func parse(_ json: String?) -> Any? {
        guard let json, !json.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
    }

    /// `top` laid over `base`: objects key by key (recursively), arrays of objects element by
    /// element (`flds`, `tmpls`), anything else replaced by `top`'s value. An absent `top` keeps `base`.
    static func merged(_ top: Any?, over base: Any) -> Any {
        guard let top else { return base }
        if let topObject = top as? [String: Any], let baseObject = base as? [String: Any] {
            var result = baseObject
            for (key, value) in topObject {
                result[key] = baseObject[key].map { merged(value, over: $0) } ?? value
            }
            return result
        }
        if let topArray = top as? [Any], let baseArray = base as? [Any],
           topArray.allSatisfy({ $0 is [String: Any] }), !baseArray.isEmpty, baseArray.allSatisfy({ $0 is [String: Any] }) {
            return topArray.enumerated().map { index, value in index < baseArray.count ? merged(value, over: baseArray[index]) : value }
        }
        return top
    }

    static func serialize(_ tree: Any) throws(UnencodableJSON) -> String {
        guard JSONSerialization.isValidJSONObject(tree),
              let data = try? JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys, .withoutEscapingSlashes])
        else { throw UnencodableJSON(keys: (tree as? [String: Any])?.keys.sorted() ?? []) }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Options that can't be written as JSON (a number that is not finite, say) stop the writer:
/// left out, they would be lost without a word. `keys` names the object's keys that failed.
struct UnencodableJSON: Error { let keys: [String] }
