import Foundation

// The configuration blobs of schema 18 (Anki's `notetypes.config`, `fields.config`,
// `templates.config`, `decks.common`/`decks.kind` and `deck_config.config`), read into the
// values they configure. Options the values don't name are collected under the keys Anki's
// schema-11 JSON gives them (what Anki writes for a legacy export), merged with the blob's
// `other` field (255: a JSON object of keys Anki itself doesn't model), so nothing is dropped.
// Field numbers are those of Anki's `notetypes.proto`, `decks.proto` and `deck_config.proto`.

/// Schema-18 option decoding into ``AnkiNoteType``, ``AnkiDeck`` and ``AnkiPreset`` values.
enum SchemaConfig {
    /// `Notetype.Config` into `type`; returns its unnamed options.
    static func readNotetype(_ bytes: [UInt8], into type: inout AnkiNoteType, path: String) throws -> [String: Any] {
        var reader = ProtobufReader(bytes, path: path)
        var options: [String: Any] = [:]
        var requirements: [[Any]] = []
        var other: [String: Any] = [:]
        type.latexPre = ""
        type.latexPost = ""
        while let (number, value) = try reader.next() {
            switch number {
            case 1: type.kind = try reader.int64(value) == 1 ? .cloze : .standard
            case 2: type.sortFieldIndex = Int(truncatingIfNeeded: try reader.uint64(value))
            case 3: type.css = try reader.string(value)
            case 4: options["did"] = try reader.int64(value)
            case 5: type.latexPre = try reader.string(value)
            case 6: type.latexPost = try reader.string(value)
            case 7: type.latexSVG = try reader.bool(value)
            case 8:
                var inner = try reader.message(value)
                var ordinal: UInt64 = 0, kind: UInt64 = 0
                var fields: [UInt64] = []
                while let (field, fieldValue) = try inner.next() {
                    switch field {
                    case 1: ordinal = try inner.uint64(fieldValue)
                    case 2: kind = try inner.uint64(fieldValue)
                    case 3: fields += try varints(fieldValue, inner)
                    default: continue
                    }
                }
                requirements.append([ordinal, ["none", "any", "all"][Int(min(kind, 2))], fields])
            case 9: type.stockKind = .init(rawValue: Int(truncatingIfNeeded: try reader.int64(value)))
            case 10: options["originalId"] = try reader.int64(value)
            case 255: other = try json(reader.bytes(value), path: path)
            default: continue
            }
        }
        options["req"] = requirements
        return other.merging(options) { _, named in named }
    }

    /// `Notetype.Field.Config` into `field`; returns its unnamed options.
    static func readField(_ bytes: [UInt8], into field: inout AnkiNoteType.Field, path: String) throws -> [String: Any] {
        var reader = ProtobufReader(bytes, path: path)
        var options: [String: Any] = ["tag": NSNull(), "preventDeletion": false]
        var other: [String: Any] = [:]
        field.font = ""
        field.fontSize = 0
        while let (number, value) = try reader.next() {
            switch number {
            case 1: field.sticky = try reader.bool(value)
            case 2: field.rightToLeft = try reader.bool(value)
            case 3: field.font = try reader.string(value)
            case 4: field.fontSize = Int(truncatingIfNeeded: try reader.uint64(value))
            case 5: field.description = try reader.string(value)
            case 6: field.plainText = try reader.bool(value)
            case 7: field.collapsed = try reader.bool(value)
            case 8: field.excludeFromSearch = try reader.bool(value)
            case 9: field.id = try reader.int64(value)
            case 10: options["tag"] = try reader.uint64(value)
            case 11: options["preventDeletion"] = try reader.bool(value)
            case 255: other = try json(reader.bytes(value), path: path)
            default: continue
            }
        }
        return other.merging(options) { _, named in named }
    }

    /// `Notetype.Template.Config` into `template`; returns its unnamed options.
    static func readTemplate(_ bytes: [UInt8], into template: inout AnkiNoteType.Template, path: String) throws -> [String: Any] {
        var reader = ProtobufReader(bytes, path: path)
        var other: [String: Any] = [:]
        while let (number, value) = try reader.next() {
            switch number {
            case 1: template.questionFormat = try reader.string(value)
            case 2: template.answerFormat = try reader.string(value)
            case 3: template.browserQuestionFormat = try reader.string(value)
            case 4: template.browserAnswerFormat = try reader.string(value)
            case 5: template.targetDeckID = try reader.int64(value)
            case 6: template.browserFont = try reader.string(value)
            case 7: template.browserFontSize = Int(truncatingIfNeeded: try reader.uint64(value))
            case 8: template.id = try reader.int64(value)
            case 255: other = try json(reader.bytes(value), path: path)
            default: continue
            }
        }
        return other
    }

    /// `Deck.Common` and `Deck.KindContainer` into `deck`; returns its unnamed options.
    static func readDeck(common: [UInt8], kind: [UInt8], into deck: inout AnkiDeck, path: String) throws -> [String: Any] {
        var options: [String: Any] = [:]
        var other: [String: Any] = [:]
        var reader = ProtobufReader(common, path: path)
        var day: Int64 = 0
        var counts: [Int: Int64] = [:]
        options["browserCollapsed"] = false
        while let (number, value) = try reader.next() {
            switch number {
            case 1: deck.collapsed = try reader.bool(value)
            case 2: options["browserCollapsed"] = try reader.bool(value)
            case 3: day = Int64(truncatingIfNeeded: try reader.uint64(value))
            case 4, 5, 6, 7: counts[number] = try reader.int64(value)
            case 255: other = try json(reader.bytes(value), path: path)
            default: continue
            }
        }
        for (number, key) in [(4, "newToday"), (5, "revToday"), (6, "lrnToday"), (7, "timeToday")] {
            options[key] = [day, Int64(Int32(truncatingIfNeeded: counts[number] ?? 0))]
        }
        reader = ProtobufReader(kind, path: path)
        while let (number, value) = try reader.next() {
            switch number {
            case 1:
                deck.isFiltered = false
                options["extendNew"] = 0
                options["extendRev"] = 0
                var normal = try reader.message(value)
                while let (field, fieldValue) = try normal.next() {
                    switch field {
                    case 1: deck.presetID = try normal.int64(fieldValue)
                    case 2: options["extendNew"] = try normal.uint64(fieldValue)
                    case 3: options["extendRev"] = try normal.uint64(fieldValue)
                    case 4: deck.description = try normal.string(fieldValue)
                    case 5: deck.markdownDescription = try normal.bool(fieldValue)
                    case 6: options["reviewLimit"] = try normal.uint64(fieldValue)
                    case 7: options["newLimit"] = try normal.uint64(fieldValue)
                    case 8, 9:
                        var limit = try normal.message(fieldValue)
                        var entry: [String: Any] = ["limit": 0, "today": 0]
                        while let (part, partValue) = try limit.next() {
                            if part == 1 { entry["limit"] = try limit.uint64(partValue) }
                            if part == 2 { entry["today"] = try limit.uint64(partValue) }
                        }
                        options[field == 8 ? "reviewLimitToday" : "newLimitToday"] = entry
                    // Schema 11 keeps a deck's desired retention in percent (Anki's `(v * 100) as u32`).
                    // Saturating as Rust's `as u32`: a float of 1e30, an infinity or NaN trapped here
                    // (found by the AnkiProtobuf fuzzer).
                    case 10:
                        let percent = Double(Float(try normal.float(fieldValue)) * 100)
                        options["desiredRetention"] = Int(saturating: min(max(percent, 0), Double(UInt32.max)), rounding: .towardZero)
                    default: continue
                    }
                }
            case 2:
                deck.isFiltered = true
                deck.reschedules = false
                var filtered = try reader.message(value)
                var delays: [Double] = []
                var hasDelays = false
                while let (field, fieldValue) = try filtered.next() {
                    switch field {
                    case 1: deck.reschedules = try filtered.bool(fieldValue)
                    case 2:
                        var term = try filtered.message(fieldValue)
                        var made = AnkiDeck.FilterTerm(search: "", limit: 0, order: 0)
                        while let (part, partValue) = try term.next() {
                            switch part {
                            case 1: made.search = try term.string(partValue)
                            case 2: made.limit = Int(truncatingIfNeeded: try term.uint64(partValue))
                            case 3: made.order = Int(truncatingIfNeeded: try term.int64(partValue))
                            default: continue
                            }
                        }
                        deck.filterTerms.append(made)
                    case 3:
                        hasDelays = true
                        delays += try filtered.floats(fieldValue)
                    case 4: options["previewDelay"] = try filtered.uint64(fieldValue)
                    case 5: options["previewHardSecs"] = try filtered.uint64(fieldValue)
                    case 6: options["previewGoodSecs"] = try filtered.uint64(fieldValue)
                    case 7: options["previewAgainSecs"] = try filtered.uint64(fieldValue)
                    default: continue
                    }
                }
                options["delays"] = hasDelays ? delays : NSNull()
            default: continue
            }
        }
        return other.merging(options) { _, named in named }
    }

    /// `DeckConfig.Config` into `preset`; returns its unnamed options (schema-11 keys; nested
    /// `new`, `rev` and `lapse` objects hold only their unnamed keys).
    static func readPreset(_ bytes: [UInt8], into preset: inout AnkiPreset, path: String) throws -> [String: Any] {
        var reader = ProtobufReader(bytes, path: path)
        var other: [String: Any] = [:]
        var options: [String: Any] = [:]
        // Schema 11 numbers the insertion order the other way round: 1 due (protobuf 0), 0 random (protobuf 1).
        var new: [String: Any] = ["order": 1]
        var lapse: [String: Any] = ["leechAction": 0]
        var learn: [Double] = [], relearn: [Double] = []
        var weights: [Int: [Double]] = [:]
        var easyDays: [Double] = []
        var disableAutoplay = false, skipQuestion = false
        // Proto3 defaults: a field absent from the blob is 0.
        preset.newPerDay = 0
        preset.reviewsPerDay = 0
        preset.maximumInterval = 0
        preset.minimumLapseInterval = 0
        preset.graduatingInterval = 0
        preset.easyInterval = 0
        preset.leechThreshold = 0
        preset.startingEase = 0
        preset.easyBonus = 0
        preset.hardMultiplier = 0
        preset.lapseMultiplier = 0
        preset.intervalMultiplier = 0
        preset.desiredRetention = 0
        for key in ["newPerDayMinimum", "newGatherPriority", "newSortOrder", "newMix", "reviewOrder", "interdayLearningMix",
                    "maxTaken", "questionAction", "answerAction"] { options[key] = 0 }
        options["timer"] = 0
        options["stopTimerOnAnswer"] = false
        options["waitForAudio"] = false
        options["secondsToShowQuestion"] = 0.0
        options["secondsToShowAnswer"] = 0.0
        options["ignoreRevlogsBeforeDate"] = ""
        options["sm2Retention"] = 0.0
        options["weightSearch"] = ""
        while let (number, value) = try reader.next() {
            switch number {
            case 1: learn += try reader.floats(value)
            case 2: relearn += try reader.floats(value)
            case 3, 5, 6: weights[number, default: []] += try reader.floats(value)
            case 4: easyDays += try reader.floats(value)
            case 9: preset.newPerDay = Int(truncatingIfNeeded: try reader.uint64(value))
            case 10: preset.reviewsPerDay = Int(truncatingIfNeeded: try reader.uint64(value))
            // Saturating: a float of 1e30, an infinity or NaN in a shared package trapped here.
            case 11: preset.startingEase = Int(saturating: try reader.float(value) * 1000)
            case 12: preset.easyBonus = try reader.float(value)
            case 13: preset.hardMultiplier = try reader.float(value)
            case 14: preset.lapseMultiplier = try reader.float(value)
            case 15: preset.intervalMultiplier = try reader.float(value)
            case 16: preset.maximumInterval = Int(truncatingIfNeeded: try reader.uint64(value))
            case 17: preset.minimumLapseInterval = Int(truncatingIfNeeded: try reader.uint64(value))
            case 18: preset.graduatingInterval = Int(truncatingIfNeeded: try reader.uint64(value))
            case 19: preset.easyInterval = Int(truncatingIfNeeded: try reader.uint64(value))
            case 20: new["order"] = try reader.int64(value) == 1 ? 0 : 1
            case 21: lapse["leechAction"] = try reader.int64(value)
            case 22: preset.leechThreshold = Int(truncatingIfNeeded: try reader.uint64(value))
            case 23: disableAutoplay = try reader.bool(value)
            case 24: options["maxTaken"] = try reader.uint64(value)
            case 25: options["timer"] = try reader.bool(value) ? 1 : 0
            case 26: skipQuestion = try reader.bool(value)
            case 27: preset.buryNewSiblings = try reader.bool(value)
            case 28: preset.buryReviewSiblings = try reader.bool(value)
            case 29: preset.buryInterdaySiblings = try reader.bool(value)
            case 30: options["newMix"] = try reader.int64(value)
            case 31: options["interdayLearningMix"] = try reader.int64(value)
            case 32: options["newSortOrder"] = try reader.int64(value)
            case 33: options["reviewOrder"] = try reader.int64(value)
            case 34: options["newGatherPriority"] = try reader.int64(value)
            case 35: options["newPerDayMinimum"] = try reader.uint64(value)
            case 36: options["questionAction"] = try reader.int64(value)
            case 37: preset.desiredRetention = try reader.float(value)
            case 38: options["stopTimerOnAnswer"] = try reader.bool(value)
            case 40: options["sm2Retention"] = try reader.float(value)
            case 41: options["secondsToShowQuestion"] = try reader.float(value)
            case 42: options["secondsToShowAnswer"] = try reader.float(value)
            case 43: options["answerAction"] = try reader.int64(value)
            case 44: options["waitForAudio"] = try reader.bool(value)
            case 45: options["weightSearch"] = try reader.string(value)
            case 46: options["ignoreRevlogsBeforeDate"] = try reader.string(value)
            case 255: other = try json(reader.bytes(value), path: path)
            default: continue
            }
        }
        preset.learningSteps = learn
        preset.relearningSteps = relearn
        let newest = [6, 5, 3].first { !(weights[$0] ?? []).isEmpty }
        preset.fsrsParameters = newest.flatMap { weights[$0] } ?? []
        for (number, key) in [(3, "fsrsWeights"), (5, "fsrsParams5"), (6, "fsrsParams6")] where number != newest {
            options[key] = weights[number] ?? []
        }
        options["easyDaysPercentages"] = easyDays
        options["autoplay"] = !disableAutoplay
        options["replayq"] = !skipQuestion
        options["new"] = new
        options["lapse"] = lapse
        return other.merging(options) { _, named in named }
    }

    /// The elements of a `repeated uint32` field: packed or one value.
    private static func varints(_ value: ProtobufReader.Value, _ reader: ProtobufReader) throws -> [UInt64] {
        guard case .bytes(let slice) = value else { return [try reader.uint64(value)] }
        var inner = ProtobufReader(slice, path: "")
        var result: [UInt64] = []
        while inner.hasMore { result.append(try inner.readRawVarint()) }
        return result
    }

    /// The `other` field: a JSON object (empty bytes: none).
    private static func json(_ bytes: ArraySlice<UInt8>, path: String) throws -> [String: Any] {
        guard !bytes.isEmpty else { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw AnkiError(.malformedProtobuf, path: path, reason: "the options' `other` field is not a JSON object")
        }
        return object
    }
}

/// JSON text of option objects: sorted keys, no insignificant white space, `{}` when empty.
enum OptionsJSON {
    static func text(_ object: [String: Any]) -> String {
        guard !object.isEmpty, JSONSerialization.isValidJSONObject(object),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
