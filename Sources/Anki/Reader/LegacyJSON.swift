import Foundation

/// The shapes of schema 11's JSON (`col.models`, `col.decks`, the legacy `media` map), decoded
/// leniently: ids may be numbers or strings (genanki writes strings), most keys may be missing.
enum LegacyJSON {
    /// An integer that may be spelled as a JSON number, a numeric string, or a bool.
    struct FlexibleInt: Decodable {
        let value: Int64
        var int: Int { Int(truncatingIfNeeded: value) }

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                value = number
            } else if let number = try? container.decode(Double.self), number.isFinite,
                      abs(number) < 9.2e18 {
                value = Int64(number)
            } else if let text = try? container.decode(String.self), let number = Int64(text) {
                value = number
            } else if let flag = try? container.decode(Bool.self) {
                value = flag ? 1 : 0
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an integer")
            }
        }
    }

    struct NoteType: Decodable {
        let id: FlexibleInt
        let name: String
        let type: FlexibleInt?
        let sortf: FlexibleInt?
        let css: String?
        let flds: [Field]
        let tmpls: [Template]
    }

    struct Field: Decodable {
        let name: String
        let ord: FlexibleInt?
    }

    struct Template: Decodable {
        let name: String
        let ord: FlexibleInt?
        let qfmt: String?
        let afmt: String?
    }

    struct Deck: Decodable {
        let id: FlexibleInt
        let name: String
        let desc: String?
        let dyn: FlexibleInt?
    }

    /// A short description of a decoding error: what was wrong, and where.
    static func describe(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func where_(_ path: [CodingKey]) -> String {
            path.isEmpty ? "" : " at " + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing key \"\(key.stringValue)\"\(where_(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(context.debugDescription)\(where_(context.codingPath))"
        case .dataCorrupted(let context): return "\(context.debugDescription)\(where_(context.codingPath))"
        @unknown default: return "\(error)"
        }
    }
}
