import FileSafety
import Foundation
import Digest
import Persistence

/// One name of a media file of a deck, as plain values: notes refer to `originalName`
/// (`<img src="cat.jpg">`); the bytes are `Media/<fileName>`. Two names may share one file.
public struct DeckMedia: Sendable, Hashable {
    /// The file name inside `Media/` (`<sha256>.<ext>`).
    public var fileName: String
    /// The name notes use (the `MediaName` row).
    public var originalName: String
    /// Lowercase hex SHA-256 of the contents.
    public var sha256: String
    /// Lowercase hex SHA-1 of the contents (Anki's media checksum), if known.
    public var sha1: String?
    /// The MIME type, e.g. `image/jpeg`.
    public var mime: String
    /// The size in bytes.
    public var size: Int

    public init(fileName: String, originalName: String, sha256: String, sha1: String? = nil, mime: String, size: Int) {
        self.fileName = fileName
        self.originalName = originalName
        self.sha256 = sha256
        self.sha1 = sha1
        self.mime = mime
        self.size = size
    }
}

extension DeckDocument {
    /// Stores media bytes content-addressed as `Media/<sha256>.<ext>` (written atomically,
    /// once per content) under the name `originalName`, and returns it. Equal bytes are stored
    /// once, whatever their names (two names, one file). A name already used for other bytes
    /// is not taken: the new bytes are named by their file name instead (the returned
    /// ``DeckMedia/originalName`` says which name to refer to).
    ///
    /// The rows are inserted into the main context and written by the next save (a bulk
    /// import saves them first).
    /// - Throws: ``DeckError`` `readOnly` for a read-only document, `io` when writing fails.
    @discardableResult
    public func addMedia(_ data: Data, originalName: String, mime: String? = nil, sha1: String? = nil) throws -> DeckMedia {
        try requireWritable()
        let digest = SHA256.hex(data)
        let ext = Self.safeExtension(of: originalName)
        let fileName = ext.isEmpty ? digest : "\(digest).\(ext)"
        let file: DeckSchemaV2.MediaFile
        if let existing = try mediaFile(fileName: fileName) {
            file = existing
            if file.sha1.isEmpty, let sha1 { file.sha1 = sha1 }
        } else {
            try writeMediaFile(data, fileName: fileName)
            file = DeckSchemaV2.MediaFile()
            file.fileName = fileName
            file.sha256 = digest
            file.sha1 = sha1 ?? ""
            file.mime = mime ?? Self.mimeType(forExtension: ext)
            file.size = data.count
            mainContext.insert(file)
            mediaByFileName[fileName] = file
        }
        let wanted = originalName.isEmpty ? fileName : originalName
        let name: DeckSchemaV2.MediaName
        if let existing = try mediaName(wanted), existing.file === file || existing.file?.fileName == fileName {
            name = existing
        } else if try mediaName(wanted) == nil {
            name = DeckSchemaV2.MediaName(name: wanted)
            mainContext.insert(name)
            name.file = file
            mediaNames[wanted] = name
        } else if let existing = try mediaName(fileName) {
            name = existing
        } else {
            name = DeckSchemaV2.MediaName(name: fileName)
            mainContext.insert(name)
            name.file = file
            mediaNames[fileName] = name
        }
        return DeckMedia(fileName: fileName, originalName: name.name, sha256: digest, sha1: file.sha1.isEmpty ? nil : file.sha1,
                         mime: file.mime, size: file.size)
    }

    /// Writes a new media file into `Media/` (nothing when a file of that name, hence those bytes, is there).
    func writeMediaFile(_ data: Data, fileName: String) throws {
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
    }

    /// The media file row named `fileName`, saved or inserted by this document.
    func mediaFile(fileName: String) throws -> DeckSchemaV2.MediaFile? {
        if let known = mediaByFileName[fileName] {
            if known.modelContext === mainContext, !known.isDeleted { return known }
            mediaByFileName[fileName] = nil
        }
        var descriptor = FetchDescriptor<DeckSchemaV2.MediaFile>(predicate: #Predicate { $0.fileName == fileName })
        descriptor.fetchLimit = 1
        descriptor.includePendingChanges = false
        if let saved = try mainContext.fetch(descriptor).first, !saved.isDeleted {
            mediaByFileName[fileName] = saved
            return saved
        }
        return nil
    }

    /// The media name row `name`, saved or inserted by this document.
    func mediaName(_ name: String) throws -> DeckSchemaV2.MediaName? {
        if let known = mediaNames[name] {
            if known.modelContext === mainContext, !known.isDeleted { return known }
            mediaNames[name] = nil
        }
        var descriptor = FetchDescriptor<DeckSchemaV2.MediaName>(predicate: #Predicate { $0.name == name })
        descriptor.fetchLimit = 1
        descriptor.includePendingChanges = false
        if let saved = try mainContext.fetch(descriptor).first, !saved.isDeleted {
            mediaNames[name] = saved
            return saved
        }
        return nil
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
        mediaNames.removeAll()
    }

    /// The file of a media name.
    public func fileURL(of media: DeckMedia) -> URL { mediaURL.appendingPathComponent(media.fileName) }

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
