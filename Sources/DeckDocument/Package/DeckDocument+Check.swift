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
    /// `Media/` (missing or altered files are errors, unreferenced files warnings), and warns
    /// about package entries the format doesn't name. Reads
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

        // Store: the manifest's version, then SQLite's own checks and every rule of the format (DeckStoreV2.check).
        do {
            try container.withDatabase(for: Note.self) { db in
                if readsRecoveredCopy {
                    warning("\(manifest.store)-journal: a write was interrupted; checked a private recovered copy, "
                            + "and the next writer rolls the journal back")
                }
                let version = try db.userVersion()
                if version != manifest.formatVersion {
                    error("\(manifest.store): user_version is \(version), manifest says format \(manifest.formatVersion)")
                }
            }
        } catch {
            problems.append(DeckProblem(severity: .error, message: "\(manifest.store): \(error)"))
        }
        problems += DeckStoreV2.check(storeAt: storeURL, mediaFolder: mediaURL)

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
        // Nothing else belongs in a package (docs/FORMAT.md, "The package"): readers ignore
        // other entries, so they are reported, not refused. Names beginning with a dot are
        // temporaries (a crashed writer's) that readers ignore by rule.
        let known = Set(entries.map(\.name))
        do {
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() where !name.hasPrefix(".") && !known.contains(name) {
                warning("\(MediaReference.printable(name)): not part of a deck package (readers ignore it)")
            }
        } catch let failure {
            error("the package can't be listed: \(failure.localizedDescription)")
        }
        return problems.sorted { $0.severity < $1.severity }
    }
}
