import Foundation

/// A card as `deck list --format json` prints it.
struct ListedCard: Equatable {
    var id: Int64
    var front: String
    var back: String
    var tags: [String]
}

/// Reads a deck's state through the tool and checks it the way a user (and `sqlite3`) would.
enum DeckState {
    /// Every card of the deck, by id, through `deck list --format json`.
    static func cards(of deck: String, in directory: URL) throws -> [Int64: ListedCard] {
        let run = try DeckBinary.run(["list", deck, "--format", "json"], in: directory)
        guard run.status == 0, !run.signaled else { throw StateError("deck list \(deck): \(run)") }
        guard let array = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] else {
            throw StateError("deck list \(deck): not a JSON array")
        }
        var cards: [Int64: ListedCard] = [:]
        for object in array {
            guard let id = (object["id"] as? NSNumber)?.int64Value, let front = object["front"] as? String,
                  let back = object["back"] as? String else { throw StateError("deck list \(deck): bad card \(object)") }
            cards[id] = ListedCard(id: id, front: front, back: back, tags: object["tags"] as? [String] ?? [])
        }
        return cards
    }

    /// Problems with the deck: `deck check` must pass and `sqlite3` must find the store sound.
    static func problems(of deck: String, in directory: URL) throws -> [String] {
        var problems: [String] = []
        let check = try DeckBinary.run(["check", deck], in: directory)
        if check.status != 0 || check.signaled { problems.append("deck check \(deck): \(check)") }
        let package = directory.appendingPathComponent(deck)
        let store = try storeURL(of: package)
        let integrity = try DeckBinary.sqliteIntegrity(of: store)
        if integrity != "ok" { problems.append("sqlite3 integrity_check \(store.lastPathComponent): \(integrity)") }
        return problems
    }

    /// The store named by the package's manifest.
    static func storeURL(of package: URL) throws -> URL {
        let data = try Data(contentsOf: package.appendingPathComponent("manifest.json"))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let store = object["store"] as? String else {
            throw StateError("\(package.path): manifest has no store")
        }
        return package.appendingPathComponent(store)
    }

    /// A byte-level fingerprint of every file in a package (for "unchanged" checks), skipping the lock file.
    static func fingerprint(of package: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in FileManager.default.subpaths(atPath: package.path) ?? [] where name != ".lock" {
            let url = package.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = (try? Data(contentsOf: url)) ?? Data()
            }
        }
        return files
    }
}

struct StateError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A small deterministic generator, so a failing run can be replayed with its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
