import Foundation
import Testing
@testable import CardTemplates

extension Tag {
    /// Tests that run a real peer (python3 with the anki package).
    @Tag static var interop: Self
}

/// What current Anki rendered (anki_render.py: one python3 process per test run).
struct AnkiRendering: Decodable, Sendable {
    struct NoteType: Decodable, Sendable {
        struct Template: Decodable, Sendable { let name, qfmt, afmt: String }
        let kind: Int
        let fields: [String]
        let templates: [Template]
        let css: String
    }
    struct Card: Decodable, Sendable {
        let ord: Int
        let deck: String
        let flag: Int
        let id: Int64
        let question, answer, css: String
    }
    struct Note: Decodable, Sendable {
        let notetype: String
        let fields: [String]
        let tags: [String]
        let cards: [Card]
    }
    struct Broken: Decodable, Sendable {
        let qfmt, afmt: String
        let fields: [String]
        let question, answer: String
    }
    struct Random: Decodable, Sendable {
        let kind: Int
        let qfmt, afmt: String
        let fields, tags: [String]
        let ord: Int
        let question, answer: String
    }
    struct Generation: Decodable, Sendable {
        struct Note: Decodable, Sendable { let fields, tags: [String]; let ords: [Int] }
        let templates: [NoteType.Template]
        let notes: [Note]
    }
    let notetypes: [String: NoteType]
    let notes: [Note]
    let broken: [Broken]
    let random: [Random]
    let generation: Generation

    /// Runs the peer once; later callers get the same result.
    static let shared: Result<AnkiRendering, PeerError> = {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("anki_render.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        // stderr goes to a file, so a chatty peer cannot block on a full pipe
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("anki_render-\(UUID().uuidString).err")
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let out = Pipe()
        do {
            guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else {
                return .failure(PeerError(message: "cannot create \(errorFile.path)"))
            }
            let errorHandle = try FileHandle(forWritingTo: errorFile)
            defer { try? errorHandle.close() }
            process.standardOutput = out
            process.standardError = errorHandle
            try process.run()
        } catch {
            return .failure(PeerError(message: "cannot run python3 \(script): \(error)"))
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            return .failure(PeerError(message: "python3 \(script) exited \(process.terminationStatus): \(stderr)"))
        }
        do {
            return .success(try JSONDecoder().decode(AnkiRendering.self, from: data))
        } catch {
            return .failure(PeerError(message: "python3 \(script) printed no valid JSON: \(error)"))
        }
    }()

    struct PeerError: Error, CustomStringConvertible, Sendable {
        let message: String
        var description: String { message }
    }

    func layout(_ name: String) throws -> NoteLayout {
        guard let type = notetypes[name] else { throw PeerError(message: "Anki printed no note type \(name)") }
        return NoteLayout(
            name: name, kind: type.kind == 1 ? .cloze : .standard, fieldNames: type.fields,
            templates: type.templates.map { CardLayout(name: $0.name, questionFormat: $0.qfmt, answerFormat: $0.afmt) },
            css: type.css)
    }
}

/// Our card generation and rendering against current Anki's, note by note (the notes are in
/// anki_render.py: every stock type, image occlusion, and a 5-field, 3-template custom type).
///
/// `card.question()` is `<style>` + CSS + `</style>` + the question; the test strips that prefix
/// and compares the rest with ``RenderedCard/question`` rendered with `ankiPlayTags: true` (Anki's
/// Python layer turns `[sound:…]` into `[anki:play:q:N]`). Every mismatch is reported.
@Suite(.tags(.interop)) struct AnkiRenderingTests {
    private func rendering() throws -> AnkiRendering {
        try AnkiRendering.shared.get()
    }

    @Test func peerCoversWhatTheIssueAsksFor() throws {
        let anki = try rendering()
        let kinds = Set(anki.notes.map(\.notetype))
        for name in ["Basic", "Basic (and reversed card)", "Basic (optional reversed card)",
                     "Basic (type in the answer)", "Cloze", "Image Occlusion", "Vocab5"] {
            #expect(kinds.contains(name), "no note of \(name)")
        }
        #expect(anki.notes.count >= 25)
        #expect(anki.notes.flatMap(\.cards).count >= 45)
    }

    @Test func generatedOrdinalsMatchAnki() throws {
        let anki = try rendering()
        for (index, note) in anki.notes.enumerated() {
            let layout = try anki.layout(note.notetype)
            let ours = layout.cardOrdinals(fieldValues: note.fields, tags: note.tags)
            let theirs = note.cards.map(\.ord)
            #expect(ours == theirs, "note \(index) (\(note.notetype), \(note.fields)): ordinals")
        }
    }

    @Test func renderedHTMLMatchesAnki() throws {
        let anki = try rendering()
        var compared = 0
        for (index, note) in anki.notes.enumerated() {
            let layout = try anki.layout(note.notetype)
            for card in note.cards {
                let context = CardContext(tags: note.tags, deckName: card.deck, flag: card.flag, cardID: card.id)
                let ours = layout.render(ordinal: card.ord, fieldValues: note.fields, context: context, ankiPlayTags: true)
                let style = "<style>\(card.css)</style>"
                let where_ = "note \(index) (\(note.notetype)) card \(card.ord)"
                #expect(ours.css == card.css, "\(where_): css")
                #expect(card.question.hasPrefix(style), "\(where_): Anki's question does not start with the style element")
                if style + ours.question != card.question {
                    Issue.record("\(where_): question differs: \(difference(style + ours.question, card.question))")
                }
                if style + ours.answer != card.answer {
                    Issue.record("\(where_): answer differs: \(difference(style + ours.answer, card.answer))")
                }
                compared += 1
            }
        }
        #expect(compared == anki.notes.flatMap(\.cards).count)
    }

    @Test func templateErrorsReadAsAnki() throws {
        let anki = try rendering()
        #expect(anki.broken.count >= 8)
        for broken in anki.broken {
            let layout = NoteLayout(name: "Basic", kind: .standard, fieldNames: ["Front", "Back"],
                                    templates: [CardLayout(name: "Broken", questionFormat: broken.qfmt, answerFormat: broken.afmt)])
            let ours = layout.render(ordinal: 0, fieldValues: broken.fields, ankiPlayTags: true)
            if ours.question != broken.question {
                Issue.record("\(broken.qfmt) / \(broken.afmt): question differs: \(difference(ours.question, broken.question))")
            }
            if ours.answer != broken.answer {
                Issue.record("\(broken.qfmt) / \(broken.afmt): answer differs: \(difference(ours.answer, broken.answer))")
            }
        }
    }

    /// 300 seeded random templates and fields (anki_render.py's pieces: sections, every filter,
    /// special fields, clozes, entities, stray braces), rendered by Anki's card-layout path.
    @Test func randomTemplatesRenderAsAnki() throws {
        let anki = try rendering()
        #expect(anki.random.count == 300)
        var mismatches = 0
        for (index, sample) in anki.random.enumerated() {
            // Anki renders the given template as card `ord`: for a standard type, put it there
            let template = CardLayout(name: "Fuzz", questionFormat: sample.qfmt, answerFormat: sample.afmt)
            let filler = CardLayout(name: "Other", questionFormat: "{{F1}}", answerFormat: "")
            let cloze = sample.kind == 1
            let layout = NoteLayout(name: cloze ? "FuzzCloze" : "FuzzStandard", kind: cloze ? .cloze : .standard,
                                    fieldNames: ["F1", "F2", "F3"],
                                    templates: cloze ? [template] : Array(repeating: filler, count: sample.ord) + [template])
            // Anki synthesizes the card: no deck (shown as "(Deck)"), no flag, id 0
            let ours = layout.render(ordinal: sample.ord, fieldValues: sample.fields, context: CardContext(tags: sample.tags), ankiPlayTags: true)
            let what = "random \(index) \(sample.qfmt.debugDescription) / \(sample.afmt.debugDescription) with \(sample.fields), card \(sample.ord)"
            if ours.question != sample.question {
                mismatches += 1
                Issue.record("\(what): question differs: \(difference(ours.question, sample.question))")
            }
            if ours.answer != sample.answer {
                mismatches += 1
                Issue.record("\(what): answer differs: \(difference(ours.answer, sample.answer))")
            }
        }
        #expect(mismatches == 0)
    }

    /// 40 random notes of a type with 7 random templates (sections on fields and tags), added to
    /// Anki: the cards it made.
    @Test func randomNotesGenerateAsAnki() throws {
        let anki = try rendering()
        let layout = NoteLayout(name: "FuzzGeneration", kind: .standard, fieldNames: ["F1", "F2", "F3"],
                                templates: anki.generation.templates.map { CardLayout(name: $0.name, questionFormat: $0.qfmt, answerFormat: $0.afmt) })
        #expect(anki.generation.notes.count == 40)
        for note in anki.generation.notes {
            #expect(layout.cardOrdinals(fieldValues: note.fields, tags: note.tags) == note.ords, "\(note.fields) \(note.tags)")
        }
    }
}

/// Where two texts part: the offset and what each has from there (80 characters).
func difference(_ ours: String, _ theirs: String) -> String {
    let a = Array(ours.unicodeScalars), b = Array(theirs.unicodeScalars)
    var i = 0
    while i < a.count, i < b.count, a[i] == b[i] { i += 1 }
    func tail(_ s: [Unicode.Scalar]) -> String {
        String(String.UnicodeScalarView(s[i..<min(s.count, i + 80)])).debugDescription
    }
    return "at \(i): ours \(tail(a)), Anki's \(tail(b))"
}
