import DeckDocument
import Foundation
import Interchange
import Persistence
import Testing

/// Packages current Anki builds itself (Peers/build_anki_collection.py), imported into format-v2
/// decks and checked property by property against what the builder reports of its collection.
@Suite(.tags(.interop)) struct AnkiPeerImportTests {
    /// The builder's collection has what issue 15 asks the tests to use.
    @Test func builderMakesWhatTheIssueAsks() throws {
        let (folder, truth) = try AnkiPeerCollection.built()
        for name in AnkiPeerCollection.packageNames {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name)")
        }
        #expect(truth.packages["current.apkg"]?.contains("collection.anki21b") == true)
        #expect(truth.packages["legacy2.apkg"]?.contains("collection.anki21") == true)
        #expect(truth.packages["legacy1.apkg"]?.contains("collection.anki21") == false)
        #expect(truth.noteTypes.contains { $0.originalStockKind == 6 && $0.type == 1 }, "image occlusion")
        #expect(truth.noteTypes.contains { $0.flds.count == 5 && $0.tmpls.count == 3 })
        #expect(truth.decks.contains { $0.name.components(separatedBy: "::").count == 3 && !$0.desc.isEmpty })
        #expect(truth.presets.count == 2)
        #expect(truth.fsrs)
        #expect(truth.cards.filter { $0.stability != nil }.count > 10)
        for queue in [-3, -2, -1] { #expect(truth.cards.contains { $0.queue == queue }, "queue \(queue)") }
        #expect(truth.cards.contains { $0.flags != 0 })
        #expect(truth.cards.contains { $0.odid != 0 && $0.did == truth.filteredDeckID })
        #expect(Set(truth.media.values).count < truth.media.count, "two names with equal bytes")
        #expect(truth.revlog.count > 300)
    }
}

extension AnkiPeerImportTests {
    typealias V2 = DeckSchemaV2

    /// Every package current Anki wrote, imported into a new deck, holds what the builder's
    /// collection holds: note types with every field and template option, notes, every card
    /// with its full scheduling, decks with descriptions and presets, the filtered deck, every
    /// review row and every media name.
    @Test(arguments: AnkiPeerCollection.packageNames)
    func importKeepsEverything(_ package: String) throws {
        let (folder, truth) = try AnkiPeerCollection.built()
        let scratch = try Scratch()
        let deck = try scratch.deck()
        let report = try AnkiImporter().importPackage(at: folder.appendingPathComponent(package), into: deck)
        #expect(report.notesAdded == truth.notes.count)
        #expect(report.cardsAdded == truth.cards.count)
        #expect(report.reviews == truth.revlog.count)
        let context = deck.mainContext
        var problems: [String] = []
        func same<T: Equatable>(_ label: String, _ ours: T, _ anki: T) {
            if ours != anki { problems.append("\(label): \(ours) ≠ Anki's \(anki)") }
        }

        // Decks and presets.
        let decks = try context.fetch(FetchDescriptor<V2.Deck>())
        let deckByAnki = Dictionary(decks.compactMap { d in d.ankiID.map { ($0, d) } }, uniquingKeysWith: { a, _ in a })
        for anki in truth.decks {
            guard let ours = deckByAnki[anki.id] else { problems.append("deck \(anki.name) missing"); continue }
            same("deck \(anki.name) name", ours.name, anki.name)
            same("deck \(anki.name) description", ours.deckDescription, anki.desc)
            same("deck \(anki.name) kind", ours.kind.rawValue, anki.dyn)
            same("deck \(anki.name) markdown", ours.markdownDescription, anki.md ?? false)
            if anki.dyn == 0 {
                same("deck \(anki.name) preset", ours.preset?.ankiID, anki.conf)
            } else {
                let terms = (try? JSONSerialization.jsonObject(with: Data(ours.filterTerms.utf8))) as? [[String: Any]] ?? []
                same("deck \(anki.name) terms", terms.map { $0["search"] as? String ?? "" }, (anki.terms ?? []).map(\.search))
                same("deck \(anki.name) term limits", terms.map { ($0["limit"] as? NSNumber)?.intValue ?? -1 }, (anki.terms ?? []).map(\.limit))
                same("deck \(anki.name) resched", ours.reschedules, anki.resched ?? true)
            }
        }
        let presets = try context.fetch(FetchDescriptor<V2.Preset>())
        for anki in truth.presets {
            guard let ours = presets.first(where: { $0.ankiID == anki.id }) else { problems.append("preset \(anki.name) missing"); continue }
            let label = "preset \(anki.name)"
            same("\(label) name", ours.name, anki.name)
            same("\(label) new/day", ours.newPerDay, anki.new.perDay)
            same("\(label) reviews/day", ours.reviewsPerDay, anki.rev.perDay)
            same("\(label) learning steps", Self.numbers(ours.learningSteps), anki.new.delays)
            same("\(label) relearning steps", Self.numbers(ours.relearningSteps), anki.lapse.delays)
            same("\(label) max interval", ours.maximumInterval, anki.rev.maxIvl)
            same("\(label) desired retention", ours.desiredRetention, anki.desiredRetention)
            same("\(label) FSRS weights", Self.numbers(ours.fsrsParameters), anki.fsrsParams6 ?? [])
            same("\(label) bury new", ours.buryNewSiblings, anki.new.bury)
            same("\(label) leech", ours.leechThreshold, anki.lapse.leechFails)
            same("\(label) starting ease", ours.startingEase, anki.new.initialFactor)
            same("\(label) uses FSRS", ours.usesFSRS, truth.fsrs)
        }

        // Note types with fields and templates.
        let types = try context.fetch(FetchDescriptor<V2.NoteType>())
        for anki in truth.noteTypes {
            guard let ours = types.first(where: { $0.ankiID == anki.id }) else { problems.append("note type \(anki.name) missing"); continue }
            let label = "note type \(anki.name)"
            same("\(label) name", ours.name, anki.name)
            same("\(label) kind", ours.kind.rawValue, anki.type)
            same("\(label) stock kind", ours.stockKind?.rawValue, anki.originalStockKind)
            same("\(label) css", ours.css, anki.css)
            same("\(label) sort field", ours.sortField, anki.sortf)
            same("\(label) latexPre", ours.latexPre, anki.latexPre)
            same("\(label) latexPost", ours.latexPost, anki.latexPost)
            same("\(label) latexsvg", ours.latexSVG, anki.latexsvg)
            same("\(label) mod", Int64(ours.modified.timeIntervalSince1970), anki.mod)
            let fields = ours.fields.sorted { $0.ordinal < $1.ordinal }
            same("\(label) fields", fields.map(\.name), anki.flds.map(\.name))
            for (field, a) in zip(fields, anki.flds) {
                let f = "\(label) field \(a.name)"
                same("\(f) font", field.font, a.font)
                same("\(f) size", field.fontSize, a.size)
                same("\(f) rtl", field.rightToLeft, a.rtl)
                same("\(f) sticky", field.sticky, a.sticky)
                same("\(f) plainText", field.plainText, a.plainText ?? false)
                same("\(f) collapsed", field.collapsed, a.collapsed ?? false)
                same("\(f) excludeFromSearch", field.excludeFromSearch, a.excludeFromSearch ?? false)
                same("\(f) description", field.fieldDescription, a.description ?? "")
            }
            let templates = ours.templates.sorted { $0.ordinal < $1.ordinal }
            same("\(label) templates", templates.map(\.name), anki.tmpls.map(\.name))
            for (template, a) in zip(templates, anki.tmpls) {
                let t = "\(label) template \(a.name)"
                same("\(t) qfmt", template.questionFormat, a.qfmt)
                same("\(t) afmt", template.answerFormat, a.afmt)
                same("\(t) bqfmt", template.browserQuestionFormat, a.bqfmt)
                same("\(t) bafmt", template.browserAnswerFormat, a.bafmt)
                same("\(t) bfont", template.browserFont, a.bfont)
                same("\(t) bsize", template.browserFontSize, a.bsize)
                same("\(t) target deck", template.targetDeck?.ankiID, (a.did ?? 0) == 0 ? nil : a.did)
            }
        }

        // Notes.
        let notes = try context.fetch(FetchDescriptor<Note>())
        let noteByAnki = Dictionary(notes.compactMap { n in n.ankiID.map { ($0, n) } }, uniquingKeysWith: { a, _ in a })
        for anki in truth.notes {
            guard let ours = noteByAnki[anki.id] else { problems.append("note \(anki.id) missing"); continue }
            same("note \(anki.id) guid", ours.guid, anki.guid)
            same("note \(anki.id) type", ours.noteType?.ankiID, anki.mid)
            same("note \(anki.id) mod", Int64(ours.modified.timeIntervalSince1970), anki.mod)
            same("note \(anki.id) fields", ours.fields, anki.fields)
            same("note \(anki.id) tags", Set(ours.tags.map(\.name)), Set(anki.tags))
        }

        // Every card with its scheduling. Day numbers count from col.crt, the new deck's day zero.
        let info = try #require(try context.fetch(FetchDescriptor<V2.DeckInfo>()).first)
        same("day zero", info.dayZero, truth.crt)
        let cards = try context.fetch(FetchDescriptor<V2.Card>())
        let cardByAnki = Dictionary(cards.compactMap { c in c.ankiID.map { ($0, c) } }, uniquingKeysWith: { a, _ in a })
        same("card count", cards.count, truth.cards.count)
        for anki in truth.cards {
            guard let ours = cardByAnki[anki.id] else { problems.append("card \(anki.id) missing"); continue }
            let c = "card \(anki.id)"
            same("\(c) note", ours.note?.ankiID, anki.nid)
            same("\(c) ord", ours.ordinal, anki.ord)
            same("\(c) deck", ours.deck?.ankiID, anki.did)
            same("\(c) type", ours.type.rawValue, anki.type)
            same("\(c) queue", ours.queue.rawValue, anki.queue)
            same("\(c) due", ours.due, anki.due)
            same("\(c) ivl", ours.interval, anki.ivl)
            same("\(c) factor", ours.easeFactor, anki.factor)
            same("\(c) reps", ours.repetitions, anki.reps)
            same("\(c) lapses", ours.lapses, anki.lapses)
            same("\(c) left", ours.remainingSteps, anki.left)
            same("\(c) odue", ours.originalDue, anki.odue)
            same("\(c) odid", ours.originalDeck?.ankiID, anki.odid == 0 ? nil : anki.odid)
            same("\(c) flag", ours.flag, anki.flags)
            same("\(c) mod", Int64(ours.modified.timeIntervalSince1970), anki.mod)
            same("\(c) custom data", ours.customData, anki.customData)
            same("\(c) stability", ours.stability.map { Float($0) }, anki.stability.map { Float($0) })
            same("\(c) difficulty", ours.difficulty.map { Float($0) }, anki.difficulty.map { Float($0) })
            same("\(c) desired retention", ours.desiredRetention.map { Float($0) }, anki.desiredRetention.map { Float($0) })
        }

        // Every review row, verbatim, on its own card.
        let reviews = try context.fetch(FetchDescriptor<V2.Review>())
        same("review count", reviews.count, truth.revlog.count)
        let reviewByTime = Dictionary(reviews.map { ($0.time, $0) }, uniquingKeysWith: { a, _ in a })
        for anki in truth.revlog {
            guard let ours = reviewByTime[anki.id] else { problems.append("review \(anki.id) missing"); continue }
            let r = "review \(anki.id)"
            same("\(r) card", ours.card?.ankiID, anki.cid)
            same("\(r) ease", ours.rating, anki.ease)
            same("\(r) ivl", ours.interval, anki.ivl)
            same("\(r) lastIvl", ours.lastInterval, anki.lastIvl)
            same("\(r) factor", ours.easeFactor, anki.factor)
            same("\(r) time", ours.duration, anki.time)
            same("\(r) type", ours.kind.rawValue, anki.type)
        }

        // Media under every name: two names of equal bytes, one file.
        let names = try context.fetch(FetchDescriptor<V2.MediaName>())
        var media: [String: String] = [:]
        for name in names { media[name.name] = name.file?.sha1 }
        same("media", media, truth.media)

        for problem in problems.prefix(40) { Issue.record("\(package): \(problem)") }
        #expect(problems.isEmpty, "\(package): \(problems.count) differences")
        #expect(deck.check().filter { $0.severity == .error }.isEmpty, "\(deck.check())")
    }

    static func numbers(_ json: String) -> [Double] {
        ((try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [NSNumber] ?? []).map(\.doubleValue)
    }
}
