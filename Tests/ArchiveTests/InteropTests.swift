import Foundation
import Testing
@testable import Archive

/// Archives we write are read by the usual peers: bsdtar, unzip, Python's zipfile and tarfile.
@Suite struct InteropTests {
    private let payload = pseudoRandomBytes(1_200_000, seed: 9)

    private func writeDeck(_ dir: borrowing TemporaryDirectory, format: ArchiveFormat) throws -> URL {
        let url = dir.path("Deck.sampledeck.\(format.fileExtension)")
        let writer = try ArchiveWriter(url: url, format: format)
        try writer.addDirectory("Deck.sampledeck")
        try writer.addFile("Deck.sampledeck/manifest.json", contents: Data(#"{"format":1}"#.utf8))
        try writer.addFile("Deck.sampledeck/store.sqlite", contents: payload)
        try writer.addDirectory("Deck.sampledeck/Media")
        try writer.addFile("Deck.sampledeck/Media/été.txt", contents: Data("summer".utf8), compression: .stored)
        try writer.finish()
        return url
    }

    @Test(arguments: ArchiveFormat.allCases)
    func bsdtarListsAndExtracts(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let url = try writeDeck(dir, format: format)
        let listing = try run("bsdtar", ["-tf", url.path])
        #expect(listing.status == 0, "\(listing.output)")
        #expect(listing.output.split(separator: "\n").map { $0.hasSuffix("/") ? String($0.dropLast()) : String($0) } == [
            "Deck.sampledeck", "Deck.sampledeck/manifest.json", "Deck.sampledeck/store.sqlite",
            "Deck.sampledeck/Media", "Deck.sampledeck/Media/été.txt",
        ])
        let out = try dir.makeDirectory("out")
        let extraction = try run("bsdtar", ["-xf", url.path, "-C", out.path])
        #expect(extraction.status == 0, "\(extraction.output)")
        #expect(try Data(contentsOf: out.appendingPathComponent("Deck.sampledeck/store.sqlite")) == payload)
        #expect(try Data(contentsOf: out.appendingPathComponent("Deck.sampledeck/Media/été.txt")) == Data("summer".utf8))
    }

    @Test func unzipTestsOurZip() throws {
        let dir = try TemporaryDirectory()
        let url = try writeDeck(dir, format: .zip)
        let result = try run("unzip", ["-t", url.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("No errors detected"))
    }

    @Test func pythonZipfileReadsOurZip() throws {
        let dir = try TemporaryDirectory()
        let url = try writeDeck(dir, format: .zip)
        let script = """
        import sys, zipfile, hashlib
        z = zipfile.ZipFile(sys.argv[1])
        assert z.testzip() is None
        for i in z.infolist():
            print(i.filename, hashlib.sha256(z.read(i)).hexdigest() if not i.is_dir() else "dir")
        """
        let result = try run("python3", ["-c", script, url.path])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.contains { $0.hasPrefix("Deck.sampledeck/Media/été.txt ") })
        #expect(lines.contains { $0.hasPrefix("Deck.sampledeck/Media/ dir") })
    }

    @Test(arguments: [ArchiveFormat.tarGzip, .tarXz])
    func pythonTarfileReadsOurTar(format: ArchiveFormat) throws {
        let dir = try TemporaryDirectory()
        let url = try writeDeck(dir, format: format)
        let script = """
        import sys, tarfile
        with tarfile.open(sys.argv[1]) as t:
            for m in t.getmembers():
                print(m.name, m.type.decode(), oct(m.mode), m.uid, m.gid, repr(m.uname), m.mtime)
        """
        let result = try run("python3", ["-c", script, url.path])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.first == "Deck.sampledeck 5 0o755 0 0 '' 946684800")
        #expect(lines.contains("Deck.sampledeck/Media/été.txt 0 0o644 0 0 '' 946684800"))
    }
}
