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
        var descriptor = FetchDescriptor<MediaReference>(predicate: #Predicate { $0.fileName == fileName })
        descriptor.fetchLimit = 1
        if let existing = try mainContext.fetch(descriptor).first { return existing }
        let target = mediaURL.appendingPathComponent(fileName)
        if !FileManager.default.fileExists(atPath: target.path) {
            do { try FileManager.default.createDirectory(at: mediaURL, withIntermediateDirectories: true) }
            catch { throw DeckError(path: mediaURL.path, reason: "can't create the media folder: \(error.localizedDescription)", kind: .io) }
            try AtomicFile.write(data, to: target)
        }
        let reference = MediaReference(fileName: fileName, originalName: originalName, sha256: digest,
                                       mime: mime ?? Self.mimeType(forExtension: ext), size: data.count)
        mainContext.insert(reference)
        return reference
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
