import Foundation
import Testing

/// Archives and Anki packages damaged after writing (one data byte flipped, so every header
/// still reads) are refused with exit status 65 and a message naming the damaged entry, and
/// nothing is written.
@Suite struct DamagedArchiveTests {
    /// Rewrites the zip `source` as `destination` with python's zipfile, each entry stored except
    /// those named in `deflate`, optionally replacing an entry's bytes with random ones (which
    /// deflate keeps verbatim), then inverts one bit in the middle of the data of the entry whose
    /// name ends with `flip`.
    static let repack = """
        import os, struct, sys, zipfile
        source, destination, flip, deflate, randomize = sys.argv[1:6]
        deflate, randomize = set(filter(None, deflate.split(","))), set(filter(None, randomize.split(",")))
        with zipfile.ZipFile(source) as zin, zipfile.ZipFile(destination, "w") as zout:
            for info in zin.infolist():
                data = os.urandom(4000) if info.filename in randomize else zin.read(info.filename)
                method = zipfile.ZIP_DEFLATED if info.filename in deflate else zipfile.ZIP_STORED
                copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                copy.external_attr = info.external_attr
                zout.writestr(copy, data, compress_type=method)
        with zipfile.ZipFile(destination) as z:
            info = next(i for i in z.infolist() if i.filename.endswith(flip))
        with open(destination, "r+b") as f:
            f.seek(info.header_offset + 26)
            name_length, extra_length = struct.unpack("<HH", f.read(4))
            where = info.header_offset + 30 + name_length + extra_length + info.compress_size // 2
            f.seek(where)
            byte = f.read(1)[0]
            f.seek(where)
            f.write(bytes([byte ^ 1]))
        """

    static func damage(_ play: Playground, _ source: String, into destination: String, flipping flip: String,
                       deflate: [String] = [], randomize: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", repack, source, destination, flip,
                             deflate.joined(separator: ","), randomize.joined(separator: ",")]
        process.currentDirectoryURL = play.url
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 could not build the damaged zip")
    }

    @Test func unarchivingAZipWithAFlippedDataByteFails() throws {
        let play = try Playground()
        try play.frenchDeck()
        #expect(try play.run("archive", "French.sampledeck", "-o", "French.zip").status == 0)
        try Self.damage(play, "French.zip", into: "Damaged.zip", flipping: "Deck.sqlite")
        try FileManager.default.createDirectory(at: play.url.appendingPathComponent("out"), withIntermediateDirectories: false)
        let result = try play.run("unarchive", "Damaged.zip", "-C", "out")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("French.sampledeck/Deck.sqlite: is damaged: its data fails its checksum"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: play.url.appendingPathComponent("out").path).isEmpty)
        let info = try play.run("info", "Damaged.zip")
        #expect(info.status == 65, "reading the archive in place fails the same way: \(info.stderr)")
    }

    @Test(arguments: [
        ("collection.anki2", "damaged.apkg: the package is damaged: collection.anki2 fails its checksum"),
        ("0", "media file \"bonjour.mp3\" (entry 0): is damaged: its data fails its checksum"),
    ])
    func importingAnApkgWithAFlippedByteFails(_ entry: String, _ message: String) throws {
        let play = try Playground()
        let fixture = InterchangeCommandTests.anki("genanki-legacy.apkg")
        // The collection stays stored (read in place); media file 0 becomes random bytes, deflated.
        try Self.damage(play, fixture, into: "damaged.apkg", flipping: entry, deflate: ["0"], randomize: ["0"])
        let created = try play.run("import", "New.sampledeck", "damaged.apkg", "--create")
        #expect(created.status == 65, "\(created.stderr)")
        #expect(created.stderr.contains(message), "\(created.stderr)")
        #expect(!play.exists("New.sampledeck"), "the deck made for the failed import is removed")

        try play.frenchDeck()
        let before = try play.run("list", "French.sampledeck", "--format", "tsv").stdout
        let into = try play.run("import", "French.sampledeck", "damaged.apkg")
        #expect(into.status == 65, "\(into.stderr)")
        #expect(try play.run("list", "French.sampledeck", "--format", "tsv").stdout == before, "nothing was imported")
        #expect(!play.exists("French.sampledeck/Media/bonjour.mp3"))
    }
}
