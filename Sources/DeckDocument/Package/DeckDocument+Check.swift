import FileSafety
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
                if readsRecoveredCopy {
                    warning("\(manifest.store)-journal: a write was interrupted; checked a private recovered copy, "
                            + "and the next writer rolls the journal back")
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
                // Values no import accepts (docs/FORMAT.md, "Value ranges"); exports refuse them too.
                for (table, column, bounds) in CardValueLimits.columns {
                    let rows = try db.rows("""
                        SELECT count(*), min(\(quoteIdentifier(table == "Review" ? "card" : "pk"))) FROM \(quoteIdentifier(table)) \
                        WHERE NOT (\(quoteIdentifier(column)) BETWEEN ? AND ?)
                        """, [bounds.0, bounds.1])
                    if case .integer(let count)? = rows.first?.first, count > 0 {
                        let first = rows.first.flatMap { $0.count > 1 ? $0[1] : nil }.map { "\($0)" } ?? "?"
                        error("\(manifest.store): \(table).\(column) is out of range in \(count) row(s) (first of card \(first))")
                    }
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

        // The package's entries: each a regular file (Media/ a directory), never a link.
        let storeName = manifest.store
        var entries = Self.fixedEntries
        entries.append((storeName, .regular))
        entries += Self.storeCompanionSuffixes.map { (storeName + $0, .regular) }
        for entry in entries {
            do {
                if let found = try UntrustedFile.type(atPath: url.appendingPathComponent(entry.name).path), found != entry.type {
                    error("\(entry.name): is \(found.rawValue), not \(entry.type.rawValue); a package holds no links or special files")
                }
            } catch let failure {
                error("\(entry.name): \(failure.reason)")
            }
        }

        // Media: every reference names a regular file of Media/ by a valid name, with its contents.
        var referenced: Set<String> = []
        var folder: Int32 = -1
        if !references.isEmpty || mediaFolderProblem() == nil {
            do {
                folder = try UntrustedFile.openDirectory(mediaURL.path)
            } catch let failure {
                if case .missing = failure.kind {} else if case .wrongType = failure.kind {} else {
                    error("\(Self.mediaFolderName): \(failure.reason)")
                }
            }
        }
        defer { if folder >= 0 { Glibc.close(folder) } }
        for reference in references {
            let shown = MediaReference.printable(reference.fileName)
            guard MediaReference.isValidFileName(reference.fileName) else {
                error("\(storeName): media reference \"\(shown)\" is not a media file name (<sha256>.<ext>)")
                continue
            }
            referenced.insert(reference.fileName)
            guard folder >= 0 else {
                error("Media/\(shown): referenced by the store but missing")
                continue
            }
            let fd: Int32
            do {
                fd = try UntrustedFile.openForReading(reference.fileName, in: folder)
            } catch let failure {
                switch failure.kind {
                case .missing: error("Media/\(shown): referenced by the store but missing")
                case .wrongType(let found): error("Media/\(shown): is \(found.rawValue), not a regular file")
                default: error("Media/\(shown): \(failure.reason)")
                }
                continue
            }
            defer { Glibc.close(fd) }
            do {
                let digest = try SHA256.hex(fileDescriptor: fd)
                if digest != reference.sha256 {
                    error("Media/\(shown): contents changed (sha256 \(digest), expected \(reference.sha256))")
                }
            } catch let failure {
                error("Media/\(shown): can't be read: \(failure)")
            }
        }
        if folder >= 0 {
            do {
                for name in try FileManager.default.contentsOfDirectory(atPath: mediaURL.path).sorted() where !name.hasPrefix(".") {
                    let shown = MediaReference.printable(name)
                    let found = try UntrustedFile.type(atPath: mediaURL.appendingPathComponent(name).path)
                    if let found, found != .regular, !referenced.contains(name) {
                        error("Media/\(shown): is \(found.rawValue), not a regular file")
                    } else if !referenced.contains(name) {
                        warning("Media/\(shown): not referenced by any card")
                    }
                }
            } catch let failure {
                error("\(Self.mediaFolderName): can't be listed: \(failure)")
            }
        }
        return problems.sorted { $0.severity < $1.severity }
    }
}
