import Foundation
import Testing
import TestSupport

/// libarchive is loaded on first use (CArchive's LibArchiveLoader.c), not at every start of
/// `deck`: commands that touch no archive don't map it and the nine libraries it pulls in.
@Suite struct LazyLibArchiveTests {
    /// The libraries the dynamic loader maps when `deck` starts (`LD_TRACE_LOADED_OBJECTS`
    /// makes ld.so list them and exit before `main`).
    private func librariesAtStart() throws -> String {
        let traced = try ChildProcess.run(PackageLayout.deck, ["--version"],
                                          environment: ["LD_TRACE_LOADED_OBJECTS": "1"])
        #expect(traced.status == 0, "\(traced.stderr)")
        return traced.stdout
    }

    @Test func deckStartsWithoutLibArchiveAndLoadsItToArchive() throws {
        let libraries = try librariesAtStart()
        #expect(libraries.contains("libsqlite3.so"), "ld.so listed: \(libraries)")
        #expect(!libraries.contains("libarchive"), "libarchive is mapped at start: \(libraries)")
        #expect(!libraries.contains("libxml2"), "libxml2 is mapped at start: \(libraries)")

        let play = try Playground()
        try play.frenchDeck()
        let archived = try play.run("archive", "French.sampledeck", "-o", "French.tar.zst")
        #expect(archived.status == 0, "\(archived.stderr)")
        let info = try play.run("info", "French.tar.zst")
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("French verbs") || info.stdout.contains("title:"), "\(info.stdout)")
    }

    /// A libarchive.so.13 that lacks the functions (an incomplete or foreign library found
    /// first on the library path) is a clear error at the first archive, not a crash.
    @Test func aLibArchiveWithoutItsFunctionsIsAClearError() throws {
        let play = try Playground()
        try play.frenchDeck()
        let archived = try play.run("archive", "French.sampledeck", "-o", "French.zip")
        #expect(archived.status == 0, "\(archived.stderr)")

        let libraries = play.url.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        let source = libraries.appendingPathComponent("empty.c")
        try Data("int sampledeck_not_libarchive(void) { return 0; }\n".utf8).write(to: source)
        let compiled = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                            ["clang", "-shared", "-fPIC", "-Wl,-soname,libarchive.so.13", "-o",
                                             libraries.appendingPathComponent("libarchive.so.13").path, source.path])
        try #require(compiled.status == 0, "clang could not build the stand-in library: \(compiled.stderr)")

        let environment = ["LD_LIBRARY_PATH": libraries.path]
        let listed = try DeckProcess.run(["list", "French.sampledeck", "--limit", "1"], in: play.url,
                                         environment: environment)
        #expect(listed.status == 0, "a command without archives needs no libarchive: \(listed.stderr)")

        let read = try DeckProcess.run(["info", "French.zip"], in: play.url, environment: environment)
        #expect(read.status != 0)
        #expect(read.stderr.hasPrefix("deck: error: French.zip: "), "\(read.stderr)")
        #expect(read.stderr.contains("libarchive could not be loaded: libarchive.so.13 has no archive_"),
                "\(read.stderr)")
        #expect(read.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 1, "\(read.stderr)")
        #expect(!read.stderr.contains("Fatal error"), "\(read.stderr)")
    }
}
