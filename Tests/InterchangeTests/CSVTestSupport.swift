import Foundation
@testable import Interchange

/// Shared helpers of the CSV tests: fixtures, temporary files, a seeded random generator.
enum CSVTestSupport {
    /// The repository's `Fixtures/csv` folder.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/csv")

    /// Reads all records of `text` (given as bytes) with `dialect`.
    static func records(_ bytes: [UInt8], _ dialect: CSVDialect = .csv) throws -> [[String]] {
        var reader = CSVReader(data: Data(bytes), dialect: dialect)
        return try reader.readAll().map(\.fields)
    }

    static func records(_ text: String, _ dialect: CSVDialect = .csv) throws -> [[String]] {
        try records(Array(text.utf8), dialect)
    }

    /// Reads a file through a parser with a tiny chunk size, so records straddle refills.
    static func recordsInChunks(_ url: URL, chunkSize: Int, dialect: CSVDialect = .csv) throws -> [CSVRecord] {
        let parser = CSVParser(input: try CSVInput.file(at: url), dialect: dialect, chunkSize: chunkSize)
        var reader = CSVReader(parser: parser)
        return try reader.readAll()
    }
}

/// A temporary directory removed when the value is released.
final class CSVTemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("csv-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `bytes` to a file named `name` and returns its URL.
    func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }
}

/// SplitMix64: a small seeded generator, so random tests are reproducible.
struct CSVSeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
