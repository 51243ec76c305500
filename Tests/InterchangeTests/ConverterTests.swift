import DeckDocument
import Foundation
import Testing
@testable import Interchange

@Suite struct ConverterTests {
    @Test(arguments: [InterchangeFormat.json, .apkg, .csv, .tsv, .html, .zip])
    func convertsADeckAndLeavesTheInputAlone(_ target: InterchangeFormat) throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck("Rich.sampledeck")
        try deck.close()
        let before = try packageSnapshot(scratch.file("Rich.sampledeck"))
        let out = scratch.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let results = try DeckConverter(target: target, outputDirectory: out, jobs: 1).run([scratch.file("Rich.sampledeck")])
        let result = try #require(results.first)
        #expect(result.succeeded, "\(result.error ?? "")")
        #expect(result.cards == 5)
        #expect(result.output == out.appendingPathComponent("Rich." + target.fileExtension).path)
        #expect(FileManager.default.fileExists(atPath: result.output ?? "/nonexistent"))
        #expect(try packageSnapshot(scratch.file("Rich.sampledeck")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["Rich." + target.fileExtension])
    }

    @Test(arguments: [InterchangeFormat.sampledeck, .json, .csv])
    func convertsAnkiPackages(_ target: InterchangeFormat) throws {
        let scratch = try Scratch()
        for name in Fixtures.ankiPackages {
            try FileManager.default.copyItem(at: Fixtures.anki(name), to: scratch.file(name))
        }
        let results = try DeckConverter(target: target, jobs: 2).run(DeckConverter.expand([scratch.url.path]))
        #expect(results.count == 4)
        for result in results {
            #expect(result.succeeded, "\(result.error ?? "")")
            #expect(result.cards == 5)
        }
        if target == .sampledeck {
            let deck = try DeckDocument.open(at: scratch.file("anki-current.sampledeck"), mode: .readOnly)
            #expect(try deck.noteCount() == 5)
            #expect(deck.manifest.title == "anki-current")
            #expect(deck.check().isEmpty)
        }
    }

    @Test(arguments: [InterchangeFormat.json, .sampledeck])
    func readsDeckArchives(_ target: InterchangeFormat) throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck("Rich.sampledeck")
        try deck.close()
        let zipped = DeckConverter(target: .zip, jobs: 1).convert(scratch.file("Rich.sampledeck"))
        #expect(zipped.succeeded, "\(zipped.error ?? "")")
        let out = scratch.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let result = DeckConverter(target: target, outputDirectory: out, jobs: 1).convert(scratch.file("Rich.sampledeck.zip"))
        #expect(result.succeeded, "\(result.error ?? "")")
        #expect(result.cards == 5)
        #expect(result.output == out.appendingPathComponent("Rich." + target.fileExtension).path)
        if target == .sampledeck {
            let copy = try DeckDocument.open(at: out.appendingPathComponent("Rich.sampledeck"), mode: .readOnly)
            #expect(try copy.noteCount() == 5)
            #expect(copy.check().isEmpty)
        }
    }

    @Test func continuesPastFailuresAndNeverOverwrites() throws {
        let scratch = try Scratch()
        try FileManager.default.copyItem(at: Fixtures.anki("genanki-legacy.apkg"), to: scratch.file("good.apkg"))
        try Data("not a zip".utf8).write(to: scratch.file("bad.apkg"))
        try Data("exists".utf8).write(to: scratch.file("taken.json"))
        try FileManager.default.copyItem(at: Fixtures.anki("genanki-legacy.apkg"), to: scratch.file("taken.apkg"))
        let inputs = ["bad.apkg", "good.apkg", "missing.apkg", "taken.apkg"].map(scratch.file)
        let results = try DeckConverter(target: .json, jobs: 2).run(inputs)
        #expect(results.map(\.succeeded) == [false, true, false, false])
        #expect(results[0].error?.contains("bad.apkg") == true)
        #expect(results[2].error?.contains("no such file") == true)
        #expect(results[3].error?.contains("already exists") == true)
        #expect(try String(contentsOf: scratch.file("taken.json"), encoding: .utf8) == "exists")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("bad.json").path))
        // Nothing half-written or staged is left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
        #expect(names.filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func planKeepsFoldersOfCollidingNamesAndRefusesWhatStillCollides() throws {
        let out = URL(fileURLWithPath: "/tmp/out")
        let converter = DeckConverter(target: .json, outputDirectory: out, jobs: 1)
        let inputs = ["/data/a/week1/vocab.csv", "/data/b/week2/vocab.apkg", "/data/a/other.csv", "/data/a/x/vocab.tsv"]
            .map { URL(fileURLWithPath: $0) }
        #expect(try converter.plan(inputs).map(\.path)
                == ["/tmp/out/a/week1/vocab.json", "/tmp/out/b/week2/vocab.json", "/tmp/out/other.json", "/tmp/out/a/x/vocab.json"])
        #expect(try DeckConverter(target: .json, jobs: 1).plan(inputs).map(\.path)
                == ["/data/a/week1/vocab.json", "/data/b/week2/vocab.json", "/data/a/other.json", "/data/a/x/vocab.json"])
        let same = ["/data/a/vocab.csv", "/data/a/vocab.tsv"].map { URL(fileURLWithPath: $0) }
        #expect(throws: ConversionPlanError(first: "/data/a/vocab.csv", second: "/data/a/vocab.tsv", output: "/tmp/out/vocab.json")) {
            try converter.plan(same)
        }
        #expect(throws: ConversionPlanError.self) { try DeckConverter(target: .json, jobs: 1).plan(same) }
    }

    @Test func expandFindsConvertibleFilesInFolders() throws {
        let scratch = try Scratch()
        let deck = try scratch.deck("A.sampledeck")
        try deck.close()
        try FileManager.default.createDirectory(at: scratch.file("sub"), withIntermediateDirectories: false)
        for name in ["sub/b.apkg", "sub/c.csv", "sub/notes.md", "sub/.hidden.apkg"] {
            try Data().write(to: scratch.file(name))
        }
        let found = DeckConverter.expand([scratch.url.path]).map { String($0.path.dropFirst(scratch.url.path.count)) }
        #expect(found == ["/A.sampledeck", "/sub/b.apkg", "/sub/c.csv"])
        #expect(DeckConverter.baseName(of: URL(fileURLWithPath: "/x/French.sampledeck.zip")) == "French")
        #expect(InterchangeFormat(inferringFrom: "deck.sampledeck/") == .sampledeck)
        #expect(InterchangeFormat(inferringFrom: "notes.txt") == .tsv)
        #expect(InterchangeFormat(inferringFrom: "noext") == nil)
    }

    @Test func csvRoundTripKeepsKindsTagsAndDecks() throws {
        let scratch = try Scratch()
        let deck = try scratch.richDeck()
        let file = scratch.file("deck.csv")
        try DeckInterchange.export(deck, format: .csv, to: file)
        let copy = try scratch.deck("Copy.sampledeck")
        let summary = try DeckInterchange.importFile(at: file, format: .csv, into: copy)
        #expect(summary.cardsAdded == 5)
        var before: [String: CardSnapshot] = [:], after: [String: CardSnapshot] = [:]
        try deck.forEachCardSnapshot { before[$0.front] = $0 }
        try copy.forEachCardSnapshot { after[$0.front] = $0 }
        #expect(Set(after.keys) == Set(before.keys))
        for (front, card) in before {
            #expect(after[front]?.kind == card.kind)
            #expect(after[front]?.back == card.back)
            #expect(after[front]?.tags == card.tags)
            #expect(after[front]?.deckPath == card.deckPath)
        }
    }
}

/// Every file under a package with its bytes (the lock file excluded).
func packageSnapshot(_ url: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
    while let file = enumerator?.nextObject() as? URL {
        if (try file.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            result[String(file.path.dropFirst(url.path.count))] = try Data(contentsOf: file)
        }
    }
    return result
}
