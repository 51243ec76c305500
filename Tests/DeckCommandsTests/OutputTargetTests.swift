import Foundation
import Testing

/// -o /dev/null, -o /dev/stdout, named pipes, and --force replacing an output atomically.
@Suite struct OutputTargetTests {
    func french() async throws -> (Playground, String) {
        let play = try Playground()
        let deck = play.path("French.sampledeck")
        let fixture = DeckProcess.packageRoot.appendingPathComponent("Fixtures/csv/french-verbs.csv").path
        let created = await play.inProcess("import", deck, fixture, "--create")
        try #require(created.status == 0, "\(created.stderr)")
        return (play, deck)
    }

    @Test func devNullIsWrittenInPlace() async throws {
        let (play, deck) = try await french()
        for format in ["csv", "json", "apkg", "html"] {
            let result = await play.inProcess("export", deck, "-o", "/dev/null", "--format", format)
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(result.stdout == "exported 43 notes from \(deck) to /dev/null\n")
        }
        let archive = await play.inProcess("archive", deck, "-o", "/dev/null")
        #expect(archive.status == 0, "\(archive.stderr)")
        #expect(FileManager.default.fileExists(atPath: "/dev/null"))
        let noFormat = await play.inProcess("export", deck, "-o", "/dev/null")
        #expect(noFormat.status == 64)
        #expect(noFormat.stderr.hasPrefix("deck: error: --format is required when writing to /dev/null\n"))
    }

    @Test func devStdoutIsStandardOutput() async throws {
        let (play, deck) = try await french()
        let csv = await play.inProcess("export", deck, "-o", "/dev/stdout", "--format", "csv")
        #expect(csv.status == 0)
        #expect(csv.stdout.hasPrefix("#separator:comma\n"))
        #expect(csv.stdout.contains("être,to be"))
        // The binary archive goes to the process's descriptor 1: run the binary.
        let archive = try DeckProcess.run(["archive", "French.sampledeck", "-o", "/dev/stdout"], in: play.url)
        #expect(archive.status == 0, "\(archive.stderr)")
        #expect(archive.stdout.hasPrefix("PK"))
    }

    @Test func aNamedPipeGetsTheBytes() async throws {
        let (play, deck) = try await french()
        let fifo = play.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Task.detached { () -> Data in
            guard let handle = FileHandle(forReadingAtPath: fifo) else { return Data() }
            return handle.readDataToEndOfFile()
        }
        let result = await play.inProcess("export", deck, "-o", fifo, "--format", "tsv")
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = await reader.value
        #expect(String(decoding: bytes, as: UTF8.self).contains("être\tto be"))
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe is still a pipe, not replaced by a file")
    }

    @Test func forceReplacesAFileNeverADirectory() async throws {
        let (play, deck) = try await french()
        let csv = play.path("out.csv")
        try Data("old".utf8).write(to: URL(fileURLWithPath: csv))
        let refused = await play.inProcess("export", deck, "-o", csv)
        #expect(refused.status == 73)
        #expect(refused.stderr == "deck: error: \(csv): already exists\n")
        #expect(try String(contentsOfFile: csv, encoding: .utf8) == "old")
        let forced = await play.inProcess("export", deck, "-o", csv, "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: csv, encoding: .utf8).contains("être,to be"))
        let zip = play.path("F.zip")
        #expect(await play.inProcess("archive", deck, "-o", zip).status == 0)
        #expect(await play.inProcess("archive", deck, "-o", zip).status == 73)
        #expect(await play.inProcess("archive", deck, "-o", zip, "--force").status == 0)
        #expect(await play.inProcess("info", zip).status == 0)
        try FileManager.default.createDirectory(atPath: play.path("folder"), withIntermediateDirectories: false)
        let directory = await play.inProcess("export", deck, "-o", play.path("folder"), "--format", "csv", "--force")
        #expect(directory.status == 73)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: play.url.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no staging left beside the outputs: \(leftovers)")
    }
}
