import Foundation

/// Schema-11 JSON objects (what ``LegacyCollectionJSON`` writes into `col`) as the rows of the
/// schema-18 tables (`notetypes`, `fields`, `templates`, `decks`, `deck_config`), converted as
/// current Anki converts them when it upgrades a schema-11 collection (rslib's `schema11.rs`):
/// each named key goes to its protobuf field, the keys Anki has no field for go into the blob's
/// `other` field (255) as a JSON object. So a package written in the current layout holds what
/// Anki would hold after importing the same collection in the legacy layout.
enum Schema18Rows {
    struct NoteTypeRow {
        let id: Int64, name: String, mtime: Int64, usn: Int64, config: [UInt8]
        let fields: [(ordinal: Int, name: String, config: [UInt8])]
        let templates: [(ordinal: Int, name: String, mtime: Int64, usn: Int64, config: [UInt8])]
    }

    struct DeckRow { let id: Int64, name: String, mtime: Int64, usn: Int64, common: [UInt8], kind: [UInt8] }

    struct PresetRow { let id: Int64, name: String, mtime: Int64, usn: Int64, config: [UInt8] }

    // MARK: Note types

    static let noteTypeKeys: Set<String> = ["id", "name", "type", "mod", "usn", "sortf", "did", "tmpls", "flds", "css",
                                            "latexPre", "latexPost", "latexsvg", "req", "originalStockKind", "originalId"]
    static let fieldKeys: Set<String> = ["name", "ord", "sticky", "rtl", "font", "size", "description", "plainText",
                                         "collapsed", "excludeFromSearch", "id", "tag", "preventDeletion"]
    static let templateKeys: Set<String> = ["name", "ord", "qfmt", "afmt", "bqfmt", "bafmt", "did", "bfont", "bsize", "id"]

    /// A note type's row and its fields' and templates' rows; `templateTimes` gives each
    /// template's modification time and update number (schema 11 has none).
    static func noteType(_ object: [String: Any], templateTimes: [(mtime: Int64, usn: Int64)]) throws -> NoteTypeRow {
        var config = ProtobufWriter()
        config.int64(1, int(object["type"]) == 1 ? 1 : 0)
        config.varint(2, UInt64(clamping: int(object["sortf"])))
        config.string(3, string(object["css"]))
        config.int64(4, int(object["did"]))
        config.string(5, string(object["latexPre"]))
        config.string(6, string(object["latexPost"]))
        config.bool(7, bool(object["latexsvg"]))
        for requirement in object["req"] as? [Any] ?? [] {
            guard let parts = requirement as? [Any], parts.count >= 3 else { continue }
            config.message(8) { inner in
                inner.varint(1, UInt64(clamping: int(parts[0])))
                let kind = parts[1] as? String ?? ""
                inner.varint(2, kind == "any" ? 1 : kind == "all" ? 2 : 0)
                inner.varints(3, (parts[2] as? [Any] ?? []).map { UInt64(clamping: int($0)) })
            }
        }
        config.int64(9, int(object["originalStockKind"]))
        if let original = optionalInt(object["originalId"]) { config.varint(10, UInt64(bitPattern: original), always: true) }
        config.bytes(255, try other(object, without: noteTypeKeys))

        let fields = try (object["flds"] as? [[String: Any]] ?? []).enumerated().map { index, field in
            var inner = ProtobufWriter()
            inner.bool(1, bool(field["sticky"]))
            inner.bool(2, bool(field["rtl"]))
            inner.string(3, string(field["font"]))
            inner.varint(4, UInt64(clamping: int(field["size"])))
            inner.string(5, string(field["description"]))
            inner.bool(6, bool(field["plainText"]))
            inner.bool(7, bool(field["collapsed"]))
            inner.bool(8, bool(field["excludeFromSearch"]))
            if let id = optionalInt(field["id"]) { inner.varint(9, UInt64(bitPattern: id), always: true) }
            if let tag = optionalInt(field["tag"]) { inner.varint(10, UInt64(clamping: tag), always: true) }
            inner.bool(11, bool(field["preventDeletion"]))
            inner.bytes(255, try other(field, without: fieldKeys))
            return (ordinal: optionalInt(field["ord"]).map { Int($0) } ?? index, name: string(field["name"]), config: inner.bytes)
        }
        let templates = try (object["tmpls"] as? [[String: Any]] ?? []).enumerated().map { index, template in
            var inner = ProtobufWriter()
            inner.string(1, string(template["qfmt"]))
            inner.string(2, string(template["afmt"]))
            inner.string(3, string(template["bqfmt"]))
            inner.string(4, string(template["bafmt"]))
            inner.int64(5, int(template["did"]))
            inner.string(6, string(template["bfont"]))
            inner.varint(7, UInt64(clamping: int(template["bsize"])))
            if let id = optionalInt(template["id"]) { inner.varint(8, UInt64(bitPattern: id), always: true) }
            inner.bytes(255, try other(template, without: templateKeys))
            let times = index < templateTimes.count ? templateTimes[index] : (mtime: 0, usn: 0)
            return (ordinal: optionalInt(template["ord"]).map { Int($0) } ?? index, name: string(template["name"]),
                    mtime: times.mtime, usn: times.usn, config: inner.bytes)
        }
        return NoteTypeRow(id: int(object["id"]), name: string(object["name"]), mtime: int(object["mod"]),
                           usn: int(object["usn"]), config: config.bytes, fields: fields, templates: templates)
    }

    // MARK: Decks

    static let deckCommonKeys: Set<String> = ["id", "mod", "name", "usn", "lrnToday", "revToday", "newToday", "timeToday",
                                              "collapsed", "browserCollapsed", "desc", "md", "dyn"]
    static let normalDeckKeys: Set<String> = ["conf", "extendNew", "extendRev", "reviewLimit", "newLimit", "reviewLimitToday",
                                              "newLimitToday", "desiredRetention"]
    static let filteredDeckKeys: Set<String> = ["resched", "terms", "separate", "delays", "previewDelay", "previewAgainSecs",
                                                "previewHardSecs", "previewGoodSecs"]

    static func deck(_ object: [String: Any]) throws(UnencodableJSON) -> DeckRow {
        let filtered = int(object["dyn"]) != 0
        // Today's counts: [day, amount]; only those of the latest day count (Anki drops the rest).
        func today(_ key: String) -> (day: Int64, amount: Int64) {
            let pair = object[key] as? [Any] ?? []
            return (pair.count > 0 ? int(pair[0]) : 0, pair.count > 1 ? int(pair[1]) : 0)
        }
        let learn = today("lrnToday"), review = today("revToday"), new = today("newToday"), time = today("timeToday")
        let lastDay = max(time.day, new.day, review.day)
        var common = ProtobufWriter()
        common.bool(1, bool(object["collapsed"]))
        common.bool(2, bool(object["browserCollapsed"]))
        common.varint(3, UInt64(truncatingIfNeeded: UInt32(truncatingIfNeeded: lastDay)))
        common.int64(4, Int64(Int32(truncatingIfNeeded: new.day == lastDay ? new.amount : 0)))
        common.int64(5, Int64(Int32(truncatingIfNeeded: review.day == lastDay ? review.amount : 0)))
        common.int64(6, Int64(Int32(truncatingIfNeeded: learn.day == lastDay ? learn.amount : 0)))
        common.int64(7, Int64(Int32(truncatingIfNeeded: time.amount)))
        common.bytes(255, try other(object, without: deckCommonKeys.union(filtered ? filteredDeckKeys : normalDeckKeys)))

        var kind = ProtobufWriter()
        if filtered {
            kind.message(2) { deck in
                deck.bool(1, bool(object["resched"]))
                for term in object["terms"] as? [Any] ?? [] {
                    guard let parts = term as? [Any], parts.count >= 3 else { continue }
                    deck.message(2) { inner in
                        inner.string(1, string(parts[0]))
                        inner.varint(2, UInt64(clamping: max(int(parts[1]), 0)))
                        inner.int64(3, int(parts[2]))
                    }
                }
                deck.floats(3, (object["delays"] as? [Any] ?? []).map { Float(double($0)) })
                deck.varint(4, UInt64(clamping: int(object["previewDelay"])))
                deck.varint(5, UInt64(clamping: int(object["previewHardSecs"])))
                deck.varint(6, UInt64(clamping: int(object["previewGoodSecs"])))
                deck.varint(7, UInt64(clamping: int(object["previewAgainSecs"])))
            }
        } else {
            kind.message(1) { deck in
                deck.int64(1, int(object["conf"]))
                deck.varint(2, UInt64(clamping: max(int(object["extendNew"]), 0)))
                deck.varint(3, UInt64(clamping: max(int(object["extendRev"]), 0)))
                deck.string(4, string(object["desc"]))
                deck.bool(5, bool(object["md"]))
                if let limit = optionalInt(object["reviewLimit"]) { deck.varint(6, UInt64(clamping: limit), always: true) }
                if let limit = optionalInt(object["newLimit"]) { deck.varint(7, UInt64(clamping: limit), always: true) }
                for (number, key) in [(8, "reviewLimitToday"), (9, "newLimitToday")] {
                    guard let limit = object[key] as? [String: Any] else { continue }
                    deck.message(number) { inner in
                        inner.varint(1, UInt64(clamping: int(limit["limit"])))
                        inner.varint(2, UInt64(clamping: int(limit["today"])))
                    }
                }
                if let percent = optionalInt(object["desiredRetention"]) { deck.float(10, Float(percent) / 100, always: true) }
            }
        }
        let name = string(object["name"]).components(separatedBy: "::").joined(separator: "\u{1F}")
        return DeckRow(id: int(object["id"]), name: name, mtime: int(object["mod"]), usn: int(object["usn"]),
                       common: common.bytes, kind: kind.bytes)
    }

    // MARK: Presets

    static let presetKeys: Set<String> = [
        "id", "mod", "name", "usn", "maxTaken", "autoplay", "timer", "replayq", "new", "rev", "lapse", "dyn", "newMix",
        "newPerDayMinimum", "interdayLearningMix", "reviewOrder", "newSortOrder", "newGatherPriority", "buryInterdayLearning",
        "fsrsWeights", "fsrsParams5", "fsrsParams6", "desiredRetention", "ignoreRevlogsBeforeDate", "easyDaysPercentages",
        "stopTimerOnAnswer", "secondsToShowQuestion", "secondsToShowAnswer", "questionAction", "answerAction", "waitForAudio",
        "sm2Retention", "weightSearch",
    ]

    static func preset(_ object: [String: Any]) throws(UnencodableJSON) -> PresetRow {
        let new = object["new"] as? [String: Any] ?? [:]
        let rev = object["rev"] as? [String: Any] ?? [:]
        let lapse = object["lapse"] as? [String: Any] ?? [:]
        var rest = object.filter { !presetKeys.contains($0.key) }
        for (key, section, named) in [("new", new, ["bury", "delays", "initialFactor", "ints", "order", "perDay"]),
                                      ("rev", rev, ["bury", "ease4", "ivlFct", "maxIvl", "perDay", "hardFactor"]),
                                      ("lapse", lapse, ["delays", "leechAction", "leechFails", "minInt", "mult"])] {
            let left = section.filter { !named.contains($0.key) }
            if !left.isEmpty { rest[key] = left }
        }
        func floats(_ value: Any?) -> [Float] { (value as? [Any] ?? []).map { Float(double($0)) } }
        let ints = new["ints"] as? [Any] ?? []
        var config = ProtobufWriter()
        config.floats(1, floats(new["delays"]))
        config.floats(2, floats(lapse["delays"]))
        config.floats(3, floats(object["fsrsWeights"]))
        config.floats(4, floats(object["easyDaysPercentages"]))
        config.floats(5, floats(object["fsrsParams5"]))
        config.floats(6, floats(object["fsrsParams6"]))
        config.varint(9, UInt64(clamping: int(new["perDay"])))
        config.varint(10, UInt64(clamping: int(rev["perDay"])))
        config.float(11, Float(int(new["initialFactor"])) / 1000)
        config.float(12, Float(double(rev["ease4"])))
        config.float(13, Float(rev["hardFactor"] == nil ? 1.2 : double(rev["hardFactor"])))
        config.float(14, Float(double(lapse["mult"])))
        config.float(15, Float(double(rev["ivlFct"])))
        config.varint(16, UInt64(clamping: int(rev["maxIvl"])))
        config.varint(17, UInt64(clamping: int(lapse["minInt"])))
        config.varint(18, UInt64(clamping: ints.count > 0 ? int(ints[0]) : 0))
        config.varint(19, UInt64(clamping: ints.count > 1 ? int(ints[1]) : 0))
        // Schema 11 numbers the insertion order the other way round (0 random, 1 due).
        config.int64(20, new["order"] == nil || int(new["order"]) != 0 ? 0 : 1)
        config.int64(21, int(lapse["leechAction"]) == 0 ? 0 : 1)
        config.varint(22, UInt64(clamping: int(lapse["leechFails"])))
        config.bool(23, !(object["autoplay"] == nil ? false : bool(object["autoplay"])))
        config.varint(24, UInt64(clamping: max(int(object["maxTaken"]), 0)))
        config.bool(25, int(object["timer"]) != 0)
        config.bool(26, !bool(object["replayq"]))
        config.bool(27, bool(new["bury"]))
        config.bool(28, bool(rev["bury"]))
        config.bool(29, bool(object["buryInterdayLearning"]))
        config.int64(30, int(object["newMix"]))
        config.int64(31, int(object["interdayLearningMix"]))
        config.int64(32, int(object["newSortOrder"]))
        config.int64(33, int(object["reviewOrder"]))
        config.int64(34, int(object["newGatherPriority"]))
        config.varint(35, UInt64(clamping: int(object["newPerDayMinimum"])))
        config.int64(36, int(object["questionAction"]))
        config.float(37, Float(double(object["desiredRetention"])))
        config.bool(38, bool(object["stopTimerOnAnswer"]))
        config.float(40, Float(double(object["sm2Retention"])))
        config.float(41, Float(double(object["secondsToShowQuestion"])))
        config.float(42, Float(double(object["secondsToShowAnswer"])))
        config.int64(43, int(object["answerAction"]))
        config.bool(44, object["waitForAudio"] == nil ? true : bool(object["waitForAudio"]))
        config.string(45, string(object["weightSearch"]))
        config.string(46, string(object["ignoreRevlogsBeforeDate"]))
        config.bytes(255, rest.isEmpty ? [] : try json(rest))
        return PresetRow(id: int(object["id"]), name: string(object["name"]), mtime: int(object["mod"]), usn: int(object["usn"]),
                         config: config.bytes)
    }

    // MARK: JSON values (read leniently, as Anki's schema-11 reader does)

    static func optionalInt(_ value: Any?) -> Int64? { LegacyValue.int64(value) }

    static func int(_ value: Any?) -> Int64 { optionalInt(value) ?? 0 }

    static func double(_ value: Any?) -> Double {
        guard let number = value as? NSNumber, number.doubleValue.isFinite else { return 0 }
        return number.doubleValue
    }

    static func bool(_ value: Any?) -> Bool {
        if let number = value as? NSNumber { return number.doubleValue != 0 }
        if let text = value as? String { return ["true", "1"].contains(text.lowercased()) }
        return false
    }

    static func string(_ value: Any?) -> String { value as? String ?? "" }

    /// The keys of `object` outside `named`, as the JSON of the `other` field (empty: none).
    static func other(_ object: [String: Any], without named: Set<String>) throws(UnencodableJSON) -> [UInt8] {
        let rest = object.filter { !named.contains($0.key) }
        return rest.isEmpty ? [] : try json(rest)
    }

    static func json(_ object: [String: Any]) throws(UnencodableJSON) -> [UInt8] {
        guard JSONSerialization.isValidJSONObject(object),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { throw UnencodableJSON(keys: object.keys.sorted()) }
        return Array(data)
    }
}
