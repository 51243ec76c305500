import Foundation
import Digest
import Persistence
import SQLite

extension DeckDocument {
    /// Checks the deck and returns what is wrong, errors first; an empty list means healthy.
    ///
    /// Runs SQLite's `integrity_check` and `foreign_key_check`, re-reads the manifest,
    /// compares the search index with the cards, and checks every media reference against
    /// `Media/` (missing or altered files are errors, unreferenced files warnings). Reads
    /// the whole store and every media file: cost grows with the deck.
    public func check() -> [DeckProblem] {
        var problems: [DeckProblem] = []
        func error(_ message: String) { problems.append(DeckProblem(severity: .error, message: message)) }
        func warning(_ message: String) { problems.append(DeckProblem(severity: .warning, message: message)) }

        // Manifest, as on disk now.
        do {
            let onDisk = try Self.readManifest(of: url)
            if onDisk.formatVersion != DeckManifest.currentFormatVersion {
                error("manifest.json: formatVersion is \(onDisk.formatVersion), expected \(DeckManifest.currentFormatVersion)")
            }
            if onDisk.store != manifest.store { error("manifest.json: store changed to \"\(onDisk.store)\" while open") }
            if onDisk.modified < onDisk.created { warning("manifest.json: modified (\(onDisk.modified)) is before created (\(onDisk.created))") }
            if onDisk.title.isEmpty { warning("manifest.json: title is empty") }
        } catch {
            problems.append(DeckProblem(severity: .error, message: "\(error)"))
        }

        // Store.
        var references: [(fileName: String, sha256: String, size: Int)] = []
        do {
            try container.withDatabase(for: Card.self) { db in
                let integrity = try db.integrityCheck()
                if integrity != ["ok"] {
                    for line in integrity.prefix(20) { error("\(manifest.store): integrity_check: \(line)") }
                }
                let violations = try db.foreignKeyViolations()
                if violations > 0 { error("\(manifest.store): \(violations) foreign key violation(s) (PRAGMA foreign_key_check)") }
                let version = try db.userVersion()
                if version != manifest.formatVersion {
                    error("\(manifest.store): user_version is \(version), manifest says format \(manifest.formatVersion)")
                }
                if try db.tableExists(DeckStore.searchTable) {
                    // Cards above the pending marker are left for the next search to index (a
                    // bulk import deferred them): expected, not damage.
                    let through = try DeckStore.indexedThrough(db) ?? Int64.max
                    let missing = try db.scalar("SELECT count(*) FROM \"Card\" WHERE \"pk\" <= ? AND \"pk\" NOT IN (SELECT rowid FROM \"CardSearch\")",
                                                [.integer(through)], as: Int.self) ?? 0
                    let stale = try db.scalar("SELECT count(*) FROM \"CardSearch\" WHERE rowid NOT IN (SELECT \"pk\" FROM \"Card\")", as: Int.self) ?? 0
                    if missing > 0 { error("\(manifest.store): \(missing) card(s) missing from the search index") }
                    if stale > 0 { error("\(manifest.store): \(stale) search index row(s) for deleted cards") }
                } else {
                    error("\(manifest.store): the search index table \(DeckStore.searchTable) is missing")
                }
                for row in try db.rows("SELECT \"fileName\", \"sha256\", \"size\" FROM \"MediaReference\" ORDER BY \"fileName\"") {
                    guard row.count == 3, case .text(let name) = row[0] else { continue }
                    let digest: String = if case .text(let d) = row[1] { d } else { "" }
                    let size: Int = if case .integer(let s) = row[2] { Int(s) } else { -1 }
                    references.append((name, digest, size))
                }
            }
        } catch {
            problems.append(DeckProblem(severity: .error, message: "\(manifest.store): \(error)"))
        }

        // Media.
        let fileManager = FileManager.default
        var referenced: Set<String> = []
        for reference in references {
            referenced.insert(reference.fileName)
            let file = mediaURL.appendingPathComponent(reference.fileName)
            guard !reference.fileName.contains("/"), fileManager.fileExists(atPath: file.path) else {
                error("Media/\(reference.fileName): referenced by the store but missing")
                continue
            }
            if let digest = try? SHA256.hex(fileAt: file), digest != reference.sha256 {
                error("Media/\(reference.fileName): contents changed (sha256 \(digest), expected \(reference.sha256))")
            }
        }
        if let names = try? fileManager.contentsOfDirectory(atPath: mediaURL.path) {
            for name in names.sorted() where !name.hasPrefix(".") && !referenced.contains(name) {
                warning("Media/\(name): not referenced by any card")
            }
        }
        return problems.sorted { $0.severity < $1.severity }
    }
}
