import Foundation

extension AnkiCard {
    /// The keys of Anki's card `data` JSON that ``AnkiCard`` names; every other key goes to
    /// ``AnkiCard/otherData``.
    public static let namedDataKeys: Set<String> = ["s", "d", "dr", "decay", "lrt", "pos", "cd"]

    /// The card's `data` column as Anki writes it: a JSON object of the keys that are set
    /// (`s`, `d`, `dr`, `decay`, `lrt`, `pos`, `cd`, then ``otherData``'s keys), `""` when none is.
    /// Numbers are written with the shortest text that reads back to the same value.
    public var encodedData: String {
        var object: [String: Any] = [:]
        if let other = Self.jsonObject(otherData) { object = other }
        if let stability { object["s"] = stability }
        if let difficulty { object["d"] = difficulty }
        if let desiredRetention { object["dr"] = desiredRetention }
        if let decay { object["decay"] = decay }
        if let lastReview { object["lrt"] = lastReview }
        if let originalPosition { object["pos"] = originalPosition }
        if !customData.isEmpty { object["cd"] = customData }
        guard !object.isEmpty,
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Sets the fields kept in the card's `data` column from its text (`""` or a JSON object).
    ///
    /// Returns the name of the key whose value has the wrong type (`"s"`, …), `"data"` when the
    /// text is not a JSON object, or nil when all was read. Nothing is set unless all was read.
    public mutating func readData(_ text: String) -> String? {
        if text.isEmpty || text == "{}" { return nil }
        if let fast = FlatCardData(text) {
            // No key at all: as for "{}", nothing is set.
            guard fast.hasKeys else { return nil }
            stability = fast.stability
            difficulty = fast.difficulty
            desiredRetention = fast.desiredRetention
            decay = fast.decay
            lastReview = fast.lastReview
            originalPosition = fast.originalPosition
            customData = fast.customData
            otherData = "{}"
            return nil
        }
        return readDataWithJSONSerialization(text)
    }

    /// ``readData(_:)`` through `JSONSerialization`: every object, whatever its keys and values.
    mutating func readDataWithJSONSerialization(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "{}" { return nil }
        guard let object = Self.jsonObject(trimmed) else { return "data" }
        func double(_ key: String) -> (Double?, Bool) {
            guard let value = object[key], !(value is NSNull) else { return (nil, true) }
            guard let number = value as? NSNumber, number.doubleValue.isFinite else { return (nil, false) }
            return (number.doubleValue, true)
        }
        func integer(_ key: String) -> (Int64?, Bool) {
            guard let value = object[key], !(value is NSNull) else { return (nil, true) }
            guard let number = value as? NSNumber,
                  let exact = Int64(exactly: number.doubleValue.rounded()), Double(exact) == number.doubleValue
            else { return (nil, false) }
            return (exact, true)
        }
        let (s, sOK) = double("s"), (d, dOK) = double("d"), (dr, drOK) = double("dr"), (decay, decayOK) = double("decay")
        let (lrt, lrtOK) = integer("lrt"), (pos, posOK) = integer("pos")
        for (key, ok) in [("s", sOK), ("d", dOK), ("dr", drOK), ("decay", decayOK), ("lrt", lrtOK), ("pos", posOK)] where !ok {
            return key
        }
        var custom = ""
        if let value = object["cd"], !(value is NSNull) {
            guard let text = value as? String else { return "cd" }
            custom = text
        }
        var rest = object
        for key in Self.namedDataKeys { rest[key] = nil }
        var other = "{}"
        if !rest.isEmpty {
            guard let data = try? JSONSerialization.data(withJSONObject: rest, options: [.sortedKeys]) else { return "data" }
            other = String(decoding: data, as: UTF8.self)
        }
        stability = s
        difficulty = d
        desiredRetention = dr
        self.decay = decay
        lastReview = lrt
        originalPosition = pos
        customData = custom
        otherData = other
        return nil
    }

    private static func jsonObject(_ text: String) -> [String: Any]? {
        guard !text.isEmpty, let value = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return nil }
        return value as? [String: Any]
    }

}

/// The card `data` objects Anki writes, read without `JSONSerialization` (which cost a tenth of
/// a package import): an object of only the named keys (``AnkiCard/namedDataKeys``), each once,
/// with numbers (`cd`: a string without escapes) or `null`, each number read as
/// `JSONSerialization` reads it (an integer as `Int64`, then as a double). Anything else (other
/// keys, escapes, a value of the wrong type) is nil here and goes the general way.
struct FlatCardData {
    var stability: Double?, difficulty: Double?, desiredRetention: Double?, decay: Double?
    var lastReview: Int64?, originalPosition: Int64?
    var customData = ""
    /// Whether the object had any key.
    var hasKeys = false

    init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private init() {}

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> FlatCardData? {
        var result = FlatCardData()
        var i = 0
        let n = bytes.count
        var seen: UInt8 = 0
        func skipSpace() { while i < n, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 } }
        /// A string without escapes or control characters, as its byte range.
        func string() -> Range<Int>? {
            guard i < n, bytes[i] == 0x22 else { return nil }
            i += 1
            let start = i
            while i < n, bytes[i] != 0x22 {
                if bytes[i] == 0x5C || bytes[i] < 0x20 { return nil }
                i += 1
            }
            guard i < n else { return nil }
            i += 1
            return start..<(i - 1)
        }
        /// A JSON number as a double, read as JSONSerialization reads it; nil for anything unusual.
        func number() -> Double? {
            let start = i
            var isInteger = true
            if i < n, bytes[i] == 0x2D { i += 1 }
            let digits = i
            while i < n, (0x30...0x39).contains(bytes[i]) { i += 1 }
            // JSON: at least one digit, no leading zero before other digits.
            guard i > digits, bytes[digits] != 0x30 || i == digits + 1 else { return nil }
            if i < n, bytes[i] == 0x2E {
                isInteger = false
                i += 1
                let fraction = i
                while i < n, (0x30...0x39).contains(bytes[i]) { i += 1 }
                guard i > fraction else { return nil }
            }
            // Exponents go the general way; so do decimals of more than 15 digits, which
            // JSONSerialization does not always round to the nearest double (it reads
            // 0.30000000000000004 as 0.3000000000000001): with at most 15, both are exact.
            if i < n, bytes[i] == 0x65 || bytes[i] == 0x45 { return nil }
            guard isInteger || i - digits - 1 <= 15 else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            if isInteger {
                guard i - digits <= 18, let value = Int64(text) else { return nil }
                return Double(value)
            }
            guard let value = Double(text), value.isFinite else { return nil }
            return value
        }
        func isNull() -> Bool {
            guard i + 4 <= n, bytes[i] == 0x6E, bytes[i + 1] == 0x75, bytes[i + 2] == 0x6C, bytes[i + 3] == 0x6C else { return false }
            i += 4
            return true
        }
        func exactInteger(_ value: Double) -> Int64? {
            guard let exact = Int64(exactly: value.rounded()), Double(exact) == value else { return nil }
            return exact
        }
        skipSpace()
        guard i < n, bytes[i] == 0x7B else { return nil }
        i += 1
        skipSpace()
        if i < n, bytes[i] == 0x7D {
            i += 1
        } else {
            while true {
                skipSpace()
                guard let keyRange = string() else { return nil }
                let key = UnsafeBufferPointer(rebasing: bytes[keyRange])
                skipSpace()
                guard i < n, bytes[i] == 0x3A else { return nil }
                i += 1
                skipSpace()
                // Which key: s d dr decay lrt pos cd (a bit each, to refuse repeats).
                let bit: UInt8
                switch String(decoding: key, as: UTF8.self) {
                case "s": bit = 1
                case "d": bit = 2
                case "dr": bit = 4
                case "decay": bit = 8
                case "lrt": bit = 16
                case "pos": bit = 32
                case "cd": bit = 64
                default: return nil
                }
                guard seen & bit == 0 else { return nil }
                seen |= bit
                if isNull() {
                    // null: the key is as good as absent.
                } else if bit == 64 {
                    guard let range = string() else { return nil }
                    result.customData = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
                } else {
                    guard let value = number() else { return nil }
                    switch bit {
                    case 1: result.stability = value
                    case 2: result.difficulty = value
                    case 4: result.desiredRetention = value
                    case 8: result.decay = value
                    case 16:
                        guard let exact = exactInteger(value) else { return nil }
                        result.lastReview = exact
                    default:
                        guard let exact = exactInteger(value) else { return nil }
                        result.originalPosition = exact
                    }
                }
                skipSpace()
                guard i < n else { return nil }
                if bytes[i] == 0x2C { i += 1; continue }
                if bytes[i] == 0x7D { i += 1; break }
                return nil
            }
        }
        skipSpace()
        result.hasKeys = seen != 0
        return i == n ? result : nil
    }
}
