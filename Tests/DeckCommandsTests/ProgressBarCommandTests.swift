import Foundation
import Testing

/// Issue 16, item 8: `export`, `convert` and `archive` draw a progress bar with its unit on
/// standard error when that is a terminal, and never with --no-progress or --quiet or when it
/// is not one. Run in-process with a standard error that claims to be a terminal. (The rate
/// and the time left appear once a second has passed: ProgressBar's own tests show them.)
@Suite struct ProgressBarCommandTests {
    func deck(notes: Int) async throws -> (Playground, String) {
        let play = try Playground()
        let deck = play.path("P.sampledeck")
        #expect(await play.inProcess("create", deck).status == 0)
        let csv = (1...notes).map { "front \($0),back \($0)" }.joined(separator: "\n") + "\n"
        try csv.write(to: play.url.appendingPathComponent("in.csv"), atomically: true, encoding: .utf8)
        #expect(await play.inProcess("import", deck, play.path("in.csv"), "--no-progress").status == 0)
        return (play, deck)
    }

    @Test(arguments: ["csv", "tsv", "json", "html", "apkg"])
    func exportCountsNotesOnATerminal(format: String) async throws {
        let (play, deck) = try await deck(notes: 130)
        let shown = await play.inProcess("export", deck, "-o", play.path("a.\(format)"), "--format", format, stderrIsTerminal: true)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stderr.contains("Exporting ["), "\(shown.stderr.debugDescription)")
        #expect(shown.stderr.contains("100% 130/130 notes"), "the last note is counted: \(shown.stderr.debugDescription)")
        #expect(shown.stderr.hasSuffix("\r"), "the bar is erased before the command's message: \(shown.stderr.debugDescription)")
        #expect(shown.stdout.contains("exported 130 notes"), "\(shown.stdout)")
        for flag in ["--no-progress", "--quiet"] {
            let off = await play.inProcess("export", deck, "-o", play.path("\(flag).\(format)"), "--format", format, flag, stderrIsTerminal: true)
            #expect(off.status == 0 && off.stderr.isEmpty, "\(flag): \(off.stderr.debugDescription)")
        }
        let piped = await play.inProcess("export", deck, "-o", play.path("b.\(format)"), "--format", format)
        #expect(piped.status == 0 && piped.stderr.isEmpty, "not a terminal: \(piped.stderr.debugDescription)")
    }

    @Test func exportToStandardOutputErasesTheBarFirst() async throws {
        let (play, deck) = try await deck(notes: 3)
        let shown = await play.inProcess("export", deck, "-o", "-", "--format", "tsv", stderrIsTerminal: true)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stderr.contains("3/3 notes") && shown.stderr.hasSuffix("\r"), "\(shown.stderr.debugDescription)")
        #expect(shown.stdout.contains("front 3\tback 3"), "\(shown.stdout)")
    }

    @Test func convertCountsFiles() async throws {
        let (play, deck) = try await deck(notes: 5)
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("out"), withIntermediateDirectories: true)
        let shown = await play.inProcess("convert", deck, "--to", "json", "--out-dir", play.path("out"), stderrIsTerminal: true)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stderr.contains("Converting [") && shown.stderr.contains("1/1 file"), "\(shown.stderr.debugDescription)")
        let quiet = await play.inProcess("convert", deck, "--to", "csv", "--out-dir", play.path("out"), "--no-progress", stderrIsTerminal: true)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr.debugDescription)")
    }

    @Test func archiveCountsBytesOfALargeDeck() async throws {
        let (play, deck) = try await deck(notes: 2)
        let media = URL(fileURLWithPath: deck).appendingPathComponent("Media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        // Above the 8 MiB a bar waits for; random bytes, so compression keeps it large.
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        try random.readData(ofLength: 9 << 20).write(to: media.appendingPathComponent("film.bin"))
        try random.close()
        let shown = await play.inProcess("archive", deck, "-o", play.path("a.tar.gz"), stderrIsTerminal: true)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stderr.contains("Archiving [") && shown.stderr.contains(" MiB"), "\(shown.stderr.debugDescription)")
        let quiet = await play.inProcess("archive", deck, "-o", play.path("b.tar.gz"), "--quiet", stderrIsTerminal: true)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr.debugDescription)")
    }
}
