import Foundation

/// `anki.import_export.PackageMetadata`: the `meta` entry of a package. Field 1 is the version enum
/// (0 unknown, 1 `collection.anki2`, 2 `collection.anki21`, 3 `collection.anki21b`).
struct PackageMetadata: Equatable {
    var version: Int

    init(version: Int) { self.version = version }

    init(decoding bytes: [UInt8], path: String) throws {
        var reader = ProtobufReader(bytes, path: path)
        var version = 0
        while let (number, value) = try reader.next() {
            if number == 1 { version = Int(truncatingIfNeeded: try reader.int64(value)) }
        }
        self.version = version
    }

    func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.int64(1, Int64(version))
        return writer.bytes
    }
}

/// `anki.import_export.MediaEntries`: the media list of a current package, one entry per zip
/// entry `0`, `1`, … in order (or the entry's `legacy_zip_filename`, field 255, when set).
struct MediaEntries: Equatable {
    struct Entry: Equatable {
        /// Field 1: the file name in the media folder.
        var name: String
        /// Field 2: the uncompressed size in bytes.
        var size: UInt32
        /// Field 3: the SHA-1 of the uncompressed bytes (20 bytes).
        var sha1: [UInt8]
        /// Field 255: the zip entry name, in packages converted from legacy ones.
        var legacyZipFilename: UInt32?
    }

    var entries: [Entry]

    init(entries: [Entry]) { self.entries = entries }

    init(decoding bytes: [UInt8], path: String) throws {
        var reader = ProtobufReader(bytes, path: path)
        var entries: [Entry] = []
        while let (number, value) = try reader.next() {
            guard number == 1 else { continue }
            var inner = try reader.message(value)
            var entry = Entry(name: "", size: 0, sha1: [], legacyZipFilename: nil)
            while let (field, fieldValue) = try inner.next() {
                switch field {
                case 1: entry.name = try inner.string(fieldValue)
                case 2: entry.size = UInt32(truncatingIfNeeded: try inner.uint64(fieldValue))
                case 3: entry.sha1 = Array(try inner.bytes(fieldValue))
                case 255: entry.legacyZipFilename = UInt32(truncatingIfNeeded: try inner.uint64(fieldValue))
                default: continue
                }
            }
            entries.append(entry)
        }
        self.entries = entries
    }

    func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        for entry in entries {
            writer.message(1) { inner in
                inner.string(1, entry.name)
                inner.varint(2, UInt64(entry.size))
                inner.bytes(3, entry.sha1)
                if let zipName = entry.legacyZipFilename {
                    inner.varint(255, UInt64(zipName), always: true)
                }
            }
        }
        return writer.bytes
    }
}

/// The parts of `anki.notetypes.Notetype.Config` (the `notetypes.config` blob, schema 18) we read:
/// field 1 kind (0 normal, 1 cloze), 2 sort field index, 3 CSS.
struct NotetypeConfig: Equatable {
    var kind = 0
    var sortFieldIndex = 0
    var css = ""

    init(decoding bytes: [UInt8], path: String) throws {
        var reader = ProtobufReader(bytes, path: path)
        while let (number, value) = try reader.next() {
            switch number {
            case 1: kind = Int(truncatingIfNeeded: try reader.int64(value))
            case 2: sortFieldIndex = Int(truncatingIfNeeded: try reader.uint64(value))
            case 3: css = try reader.string(value)
            default: continue
            }
        }
    }
}

/// The parts of `anki.notetypes.Notetype.Template.Config` (the `templates.config` blob) we read:
/// fields 1 question format, 2 answer format, 3 browser question format, 4 browser answer format.
struct TemplateConfig: Equatable {
    var questionFormat = ""
    var answerFormat = ""
    var browserQuestionFormat = ""
    var browserAnswerFormat = ""

    init(decoding bytes: [UInt8], path: String) throws {
        var reader = ProtobufReader(bytes, path: path)
        while let (number, value) = try reader.next() {
            switch number {
            case 1: questionFormat = try reader.string(value)
            case 2: answerFormat = try reader.string(value)
            case 3: browserQuestionFormat = try reader.string(value)
            case 4: browserAnswerFormat = try reader.string(value)
            default: continue
            }
        }
    }
}

/// The parts of `anki.decks.Deck.KindContainer` (the `decks.kind` blob) we read: field 1 a normal
/// deck (whose field 4 is its description), field 2 a filtered deck.
struct DeckKind: Equatable {
    var isFiltered = false
    var description = ""

    init(decoding bytes: [UInt8], path: String) throws {
        var reader = ProtobufReader(bytes, path: path)
        while let (number, value) = try reader.next() {
            switch number {
            case 1:
                var normal = try reader.message(value)
                while let (field, fieldValue) = try normal.next() {
                    if field == 4 { description = try normal.string(fieldValue) }
                }
            case 2:
                isFiltered = true
                var filtered = try reader.message(value)
                while try filtered.next() != nil {}
            default: continue
            }
        }
    }
}
