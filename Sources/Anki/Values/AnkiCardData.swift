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
