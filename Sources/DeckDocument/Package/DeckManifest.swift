import Foundation

/// The contents of `manifest.json`, the package's identity card.
///
/// Written as pretty-printed JSON with sorted keys and ISO 8601 dates. See docs/FORMAT.md.
public struct DeckManifest: Codable, Sendable, Equatable {
    /// The content type every deck carries.
    public static let deckContentType = "com.example.flashcards"
    /// The format version this library writes.
    public static let currentFormatVersion = 2
    /// The store file name inside the package.
    public static let defaultStoreName = "Deck.sqlite"

    /// Always ``deckContentType``.
    public var contentType: String
    /// The package format version (``currentFormatVersion`` when written by this library).
    public var formatVersion: Int
    /// A random identity given at creation; copies keep it.
    public var documentID: UUID
    public var title: String
    public var created: Date
    /// Updated by every save.
    public var modified: Date
    /// The program that last wrote the deck, e.g. `SampleDeck 0.2`.
    public var generator: String
    /// The store file, relative to the package.
    public var store: String

    public init(title: String, created: Date = Date(), documentID: UUID = UUID(),
                formatVersion: Int = DeckManifest.currentFormatVersion, generator: String = DeckManifest.generatorName,
                store: String = DeckManifest.defaultStoreName) {
        self.contentType = Self.deckContentType
        self.formatVersion = formatVersion
        self.documentID = documentID
        self.title = title
        self.created = created
        self.modified = created
        self.generator = generator
        self.store = store
    }

    /// The generator this library writes.
    public static let generatorName = "SampleDeck 0.2"

    /// The manifest as JSON bytes.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(DeckManifest.formatDate(date))
        }
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// Decodes a manifest; throws ``DeckError`` (`corrupt`/`notADeck`) naming `path`.
    ///
    /// It refuses what JSONDecoder refuses (JSONSerialization checks the syntax: trailing
    /// garbage, bad UTF-8, nesting deeper than 512; the fields are read with JSONDecoder's types:
    /// `true` is not a number, `1.5` not an integer), and more: a repeated field (JSONDecoder
    /// takes the first, JSONSerialization the last, other readers may take either) and a text
    /// that is not UTF-8 (FORMAT.md: "a UTF-8 JSON object").
    public static func decode(_ data: Data, path: String) throws -> DeckManifest {
        let bytes = [UInt8](data)
        // JSONSerialization would read UTF-16 and UTF-32 too; JSON text in UTF-8 has no NUL byte.
        guard !bytes.contains(0), !bytes.starts(with: [0xFE, 0xFF]), !bytes.starts(with: [0xFF, 0xFE]) else {
            throw DeckError(path: path, reason: "manifest is not UTF-8 JSON", kind: .corrupt)
        }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) }
        catch { throw DeckError(path: path, reason: "manifest is not valid JSON", kind: .corrupt) }
        guard let dictionary = object as? [String: Any] else {
            throw DeckError(path: path, reason: "manifest is not a JSON object", kind: .corrupt)
        }
        if let repeated = repeatedKey(inObject: bytes) {
            throw DeckError(path: path, reason: "manifest repeats the field \"\(repeated)\"", kind: .corrupt)
        }
        guard let type = dictionary["contentType"] as? String else {
            throw DeckError(path: path, reason: "manifest has no contentType; not a .sampledeck package", kind: .notADeck)
        }
        guard type == deckContentType else {
            throw DeckError(path: path, reason: "manifest contentType is \"\(type)\", expected \"\(deckContentType)\"", kind: .notADeck)
        }
        // Read from the parsed object, field by field in the order they are declared (JSONDecoder
        // and its date strategy cost a short command 1.5 ms: most of reading the manifest).
        func value(_ key: String) throws -> Any {
            guard let value = dictionary[key] else {
                throw DeckError(path: path, reason: "manifest lacks the field \"\(key)\"", kind: .corrupt)
            }
            return value
        }
        func wrongType(_ key: String) -> DeckError {
            DeckError(path: path, reason: "manifest field \"\(key)\" has the wrong type", kind: .corrupt)
        }
        func string(_ key: String) throws -> String {
            guard let text = try value(key) as? String else { throw wrongType(key) }
            return text
        }
        func date(_ key: String) throws -> Date {
            let text = try string(key)
            guard let date = parseDate(text) else {
                throw DeckError(path: path, reason: "manifest field \"\(key)\": not an ISO 8601 date: \(text)", kind: .corrupt)
            }
            return date
        }
        // JSONSerialization gives numbers and booleans as NSNumber, and `true as? Int` is 1:
        // a boolean (Objective-C type "c") is refused as JSONDecoder refuses it.
        let formatVersionValue = try value("formatVersion")
        guard let formatVersion = formatVersionValue as? Int,
              (formatVersionValue as? NSNumber).map({ String(cString: $0.objCType) != "c" }) ?? true else { throw wrongType("formatVersion") }
        if let error = versionError(formatVersion, path: path) { throw error }
        let identity = try string("documentID")
        guard let documentID = UUID(uuidString: identity) else {
            throw DeckError(path: path, reason: "manifest field \"documentID\": not a UUID: \(identity)", kind: .corrupt)
        }
        var manifest = DeckManifest(title: try string("title"), created: try date("created"), documentID: documentID,
                                    formatVersion: formatVersion, generator: "", store: "")
        manifest.contentType = type
        manifest.modified = try date("modified")
        manifest.generator = try string("generator")
        manifest.store = try string("store")
        return manifest
    }

    /// The first key of the top-level object of `bytes` that an earlier key equals (as Swift
    /// strings compare, escapes decoded), or nil. `bytes` is JSON that JSONSerialization has read
    /// (so well formed): the scan only walks the top level, skipping values.
    static func repeatedKey(inObject bytes: [UInt8]) -> String? {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
        /// The string starting at `index` (its opening quote), decoded; `index` ends after it.
        func string() -> String {
            var utf8: [UInt8] = []
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                    utf8.append(bytes[index])
                    index += 1
                    continue
                }
                let escaped = bytes[index + 1]
                index += 2
                switch escaped {
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    func hex() -> UInt32 {
                        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { return 0xFFFD }
                        index += 4
                        return value
                    }
                    var code = hex()
                    if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = hex()
                        code = 0x10000 + ((code - 0xD800) << 10) + ((low &- 0xDC00) & 0x3FF)
                    }
                    utf8 += Array(String(Unicode.Scalar(code).map(Character.init) ?? "\u{FFFD}").utf8)
                default: utf8.append(escaped)
                }
            }
            index += 1
            return String(decoding: utf8, as: UTF8.self)
        }
        /// Skips the value starting at `index` (nested objects and arrays whole).
        func skipValue() {
            var depth = 0
            repeat {
                guard index < bytes.count else { return }
                switch bytes[index] {
                case UInt8(ascii: "\""): _ = string()
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; index += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; index += 1
                case UInt8(ascii: ","), UInt8(ascii: ":"): index += 1
                default:
                    // A number or a literal: up to the next delimiter.
                    if depth == 0 {
                        while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
                        return
                    }
                    index += 1
                }
            } while depth > 0
        }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        var keys: Set<String> = []
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let key = string()
            if !keys.insert(key).inserted { return key }
            skipSpace()
            index += 1  // the colon
            skipSpace()
            skipValue()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    /// The refusal for a format version other than the current one, or nil.
    static func versionError(_ version: Int, path: String) -> DeckError? {
        let current = currentFormatVersion
        if version > current {
            return DeckError(path: path, reason: "deck format version \(version) is newer than this program's version \(current); update SampleDeck",
                             kind: .newerVersion)
        }
        if version < current {
            return DeckError(path: path, reason: "deck format version \(version) is older than the current version \(current); run `deck migrate` to upgrade it (a backup is kept)",
                             kind: .notADeck)
        }
        return nil
    }

    static func formatDate(_ date: Date) -> String {
        withFraction.format(date)
    }

    /// The date with or without fractional seconds; nil when it is neither.
    static func parseDate(_ text: String) -> Date? {
        if let date = parseUTCDate(text) { return date }
        if let date = try? withFraction.parse(text) { return date }
        return try? withoutFraction.parse(text)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.sssZ`, the forms this library writes, read
    /// without a calendar (making the ISO 8601 style's calendar costs a short command about half
    /// a millisecond); the same date ``withFraction`` and ``withoutFraction`` read from them. Nil
    /// for any other form (offsets, other precisions, out-of-range fields, years before 1583), left to those styles.
    static func parseUTCDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 || bytes.count == 24, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")] + (bytes.count == 24 ? [(19, ".")] : [])
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              let millisecond = bytes.count == 24 ? number(20..<23) : 0,
              // Before 1583 the styles' calendar is the Julian one (the Gregorian reform of 1582).
              year >= 1583, (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        // Days from 1970-01-01 to the date, proleptic Gregorian (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(millisecond) / 1000)
    }

    // Made once: building a style's calendar costs more than parsing a date.
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()
}
