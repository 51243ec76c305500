import Foundation
import Testing

/// The README's `make demo` sequence, run on the built binary.
@Suite struct DemoTests {
    @Test func demoSequenceWorksEndToEnd() throws {
        let play = try Playground()
        let fixture = DeckProcess.packageRoot.appendingPathComponent("Fixtures/csv/french-verbs.csv").path
        let rows = Self.recordCount(try String(contentsOfFile: fixture, encoding: .utf8)) - 1

        let create = try play.run("create", "French.sampledeck", "--title", "French verbs")
        #expect(create.status == 0, "\(create.stderr)")
        #expect(create.stdout == "created French.sampledeck\n")
        #expect(create.stderr.isEmpty)

        let imported = try play.run("import", "French.sampledeck", fixture)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "imported \(rows) notes into French.sampledeck\n")
        #expect(imported.stderr.isEmpty, "no progress bar when stderr is not a terminal")

        let list = try play.run("list", "French.sampledeck", "--sort", "front", "--limit", "10")
        #expect(list.status == 0)
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 11)
        #expect(lines.first?.hasPrefix("ID") == true)
        let fronts = lines.dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] }
        #expect(fronts == fronts.sorted())
        #expect(fronts.first == "aimer")

        let search = try play.run("search", "French.sampledeck", "etre")
        #expect(search.status == 0)
        #expect(search.stdout.contains("être"))
        #expect(search.stdout.contains("to be"))

        let check = try play.run("check", "French.sampledeck")
        #expect(check.status == 0)
        #expect(check.stdout == "French.sampledeck: ok\n")

        let archive = try play.run("archive", "French.sampledeck", "-o", "French.sampledeck.zip")
        #expect(archive.status == 0, "\(archive.stderr)")
        #expect(play.exists("French.sampledeck.zip"))

        let info = try play.run("info", "French.sampledeck.zip", "--json")
        #expect(info.status == 0, "\(info.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
        #expect(object?["title"] as? String == "French verbs")
        #expect(object?["cards"] as? Int == rows)
        #expect(info.stderr.isEmpty)
    }

    /// The number of CSV records in `text` (line breaks inside quotes do not end a record).
    static func recordCount(_ text: String) -> Int {
        var count = 0, inQuotes = false, sawField = false
        for character in text {
            if character == "\"" { inQuotes.toggle() }
            if character == "\n" && !inQuotes {
                if sawField { count += 1 }
                sawField = false
            } else {
                sawField = true
            }
        }
        return count + (sawField ? 1 : 0)
    }
}
