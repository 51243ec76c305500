import FileSafety
import Foundation
import Digest
import Persistence

extension DeckDocument {
    /// Stores media bytes content-addressed as `Media/<sha256>.<ext>` (written atomically,
    /// once per content) and returns its ``MediaReference``, reusing an existing one.
    ///
    /// The reference is inserted into the main context; attach it to cards with
    /// `card.media.append(reference)` and save.
    /// - Throws: ``DeckError`` `readOnly` for a read-only document, `io` when writing fails.
    public func addMedia(_ data: Data, originalName: String, mime: String? = nil) throws -> MediaReference {
        try requireOpen()
        guard mode == .readWrite else { throw DeckError(path: url.path, reason: "deck is open read-only", kind: .readOnly) }
        let digest = SHA256.hex(data)
        let ext = Self.safeExtension(of: originalName)
        let fileName = ext.isEmpty ? digest : "\(digest).\(ext)"
        if let existing = try mediaReference(fileName: fileName) { return existing }
        let target = mediaURL.appendingPathComponent(fileName)
        // Media/ must be a real folder (a link would make us write where it points), and a
        // file already there a regular one.
        if let problem = mediaFolderProblem() {
            throw DeckError(path: mediaURL.path, reason: problem + "; a package holds no links", kind: .corrupt)
        }
        let existing: FileType?
        do { existing = try UntrustedFile.type(atPath: target.path) }
        catch { throw DeckError(path: target.path, reason: error.reason, kind: .io) }
        switch existing {
        case .regular?:
            break
        case nil:
            if mediaFolderIsAbsent() {
                guard mkdir(mediaURL.path, 0o755) == 0 || errno == EEXIST else {
                    throw DeckError(path: mediaURL.path, reason: "can't create the media folder: \(AtomicFile.errnoText())",
                                    kind: errno == EROFS || errno == EACCES ? .readOnly : .io)
                }
                try Self.requireEntry(Self.mediaFolderName, type: .directory, in: url, optional: false)
            }
            do {
                try AtomicFile.write(data, to: target, policy: .never)
                addedMediaFiles.append(target)
            } catch let error as DeckError where error.kind == .alreadyExists {
                // Written meanwhile by another document of the same deck: same name, same bytes.
            }
        case let found?:
            throw DeckError(path: target.path, reason: "media file Media/\(MediaReference.printable(fileName)) is \(found.rawValue), not a regular file", kind: .corrupt)
        }
        let reference = MediaReference(fileName: fileName, originalName: originalName, sha256: digest,
                                       mime: mime ?? Self.mimeType(forExtension: ext), size: data.count)
        let scanWasCurrent = pendingMediaScanIsCurrent(mainContext.insertedModelsArray)
        mainContext.insert(reference)
        mediaByFileName[fileName] = reference
        if scanWasCurrent { pendingMediaScan = (mainContext.insertedModelsArray.count, ObjectIdentifier(reference)) }
        return reference
    }

    /// The reference of the media file named `fileName` in ``mainContext``, saved or pending.
    ///
    /// Cost: a dictionary lookup for a reference this document handed out; otherwise one
    /// indexed SQL query for a saved one, and a scan of the context's pending inserts (no
    /// predicate evaluation) for one inserted by other code.
    func mediaReference(fileName: String) throws -> MediaReference? {
        if let known = mediaByFileName[fileName] {
            if isLive(known), known.fileName == fileName { return known }
            mediaByFileName[fileName] = nil
        }
        var descriptor = FetchDescriptor<MediaReference>(predicate: #Predicate { $0.fileName == fileName })
        descriptor.fetchLimit = 1
        descriptor.includePendingChanges = false
        if let saved = try mainContext.fetch(descriptor).first, !saved.isDeleted {
            mediaByFileName[fileName] = saved
            return saved
        }
        // Pending references inserted by other code: each pending insert is looked at once.
        let inserted = mainContext.insertedModelsArray
        if !pendingMediaScanIsCurrent(inserted) {
            for case let reference as MediaReference in inserted where !(mediaByFileName[reference.fileName].map(isLive) ?? false) {
                mediaByFileName[reference.fileName] = reference
            }
            pendingMediaScan = (inserted.count, inserted.last.map { ObjectIdentifier($0) })
            if let pending = mediaByFileName[fileName], isLive(pending) { return pending }
        }
        return nil
    }

    /// Whether a reference is still one of ``mainContext``'s (not rolled back or deleted).
    private func isLive(_ reference: MediaReference) -> Bool {
        reference.modelContext === mainContext && !reference.isDeleted
    }

    /// Whether ``pendingMediaScan`` still describes the context's pending inserts.
    private func pendingMediaScanIsCurrent(_ inserted: [any PersistentModel]) -> Bool {
        inserted.count == pendingMediaScan.count && inserted.last.map { ObjectIdentifier($0) } == pendingMediaScan.last
    }

    /// Whether the package has no `Media/` entry at all.
    private func mediaFolderIsAbsent() -> Bool {
        var status = stat()
        return lstat(mediaURL.path, &status) != 0 && errno == ENOENT
    }

    /// Removes the media files ``addMedia(_:originalName:mime:)`` wrote since the last save,
    /// and forgets the references it handed out: after a failed import, `Media/` is as it
    /// was. (A file is written only when no file of that content was there, so none of them
    /// is named by a saved reference.)
    func removeUnsavedMediaFiles() {
        for file in addedMediaFiles { unlink(file.path) }
        addedMediaFiles.removeAll()
        mediaByFileName.removeAll()
        pendingMediaScan = (0, nil)
    }

    /// The file of a media reference.
    public func fileURL(of media: MediaReference) -> URL { mediaURL.appendingPathComponent(media.fileName) }

    /// A lowercase extension of letters and digits (at most 10), or "".
    static func safeExtension(of name: String) -> String {
        let ext = (name as NSString).pathExtension.lowercased()
        guard ext.count <= 10, ext.unicodeScalars.allSatisfy({ ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") }) else { return "" }
        return ext
    }

    static func mimeType(forExtension ext: String) -> String {
        switch ext {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "svg": "image/svg+xml"
        case "mp3": "audio/mpeg"
        case "ogg", "oga": "audio/ogg"
        case "wav": "audio/wav"
        case "m4a": "audio/mp4"
        case "mp4": "video/mp4"
        case "webm": "video/webm"
        default: "application/octet-stream"
        }
    }
}
