import Foundation
import Testing

/// The committed man pages are exactly what `deck --generate-manpages` writes from the
/// command declarations (the same ones `--help` prints), so help and man cannot disagree.
@Suite struct ManualPageTests {
    @Test func committedPagesMatchTheGeneratedOnes() throws {
        let play = try Playground()
        let generated = try play.run("--generate-manpages", ".")
        #expect(generated.status == 0, "\(generated.stderr)")
        let manDirectory = DeckProcess.packageRoot.appendingPathComponent("man")
        let names = try FileManager.default.contentsOfDirectory(atPath: play.url.path).filter { $0.hasSuffix(".1") }.sorted()
        #expect(names.contains("deck.1"))
        #expect(names.contains("deck-list.1"))
        for name in names {
            let fresh = try String(contentsOf: play.url.appendingPathComponent(name), encoding: .utf8)
            let committed = try? String(contentsOf: manDirectory.appendingPathComponent(name), encoding: .utf8)
            #expect(committed == fresh, "man/\(name) is stale: run .build/debug/deck --generate-manpages man")
        }
    }

    @Test func helpAndManualShareTheAbstract() throws {
        let play = try Playground()
        let help = try play.run("archive", "--help")
        let page = try String(contentsOf: DeckProcess.packageRoot.appendingPathComponent("man/deck-archive.1"), encoding: .utf8)
        #expect(help.stdout.contains("Write a deck into one zip or compressed tar file."))
        #expect(page.lowercased().contains("write a deck into one zip or compressed tar file"))
    }
}
