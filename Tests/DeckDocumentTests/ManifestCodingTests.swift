import Foundation
import Testing
@testable import DeckDocument

/// `manifest.json` is read from its JSON object field by field, and its dates without a
/// calendar when they have the form this library writes: the same manifest, the same dates
/// and the same refusals as through JSONDecoder and the ISO 8601 styles.
@Suite struct ManifestCodingTests {
    static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    static let withoutFraction = Date.ISO8601FormatStyle()

    @Test func theFastDateReaderReadsWhatTheISO8601StylesRead() throws {
        var generator = SystemRandomNumberGenerator()
        var texts = ["1970-01-01T00:00:00.000Z", "1970-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
                     "2000-02-29T12:00:00.500Z", "1900-02-28T23:59:59Z", "1583-01-01T00:00:00Z", "1582-12-31T23:59:59.999Z", "2026-12-01T18:21:46.628Z", "1969-12-31T23:59:59.999Z"]
        for _ in 0..<3000 {
            let seconds = Double(Int64.random(in: -62_135_596_800...253_402_300_799, using: &generator))
            let date = Date(timeIntervalSince1970: seconds + Double(Int.random(in: 0...999, using: &generator)) / 1000)
            texts.append(Self.withFraction.format(date))
            texts.append(Self.withoutFraction.format(date))
        }
        for text in texts {
            let style = text.count == 24 ? try Self.withFraction.parse(text) : try Self.withoutFraction.parse(text)
            #expect(DeckManifest.parseDate(text) == style, "\(text)")
            // Years before 1583 are the styles' (their calendar is Julian there).
            guard let year = Int(text.prefix(4)), year >= 1583 else {
                #expect(DeckManifest.parseUTCDate(text) == nil)
                continue
            }
            let fast = try #require(DeckManifest.parseUTCDate(text), "\(text)")
            #expect(fast.timeIntervalSinceReferenceDate.bitPattern == style.timeIntervalSinceReferenceDate.bitPattern,
                    "\(text): \(fast.timeIntervalSinceReferenceDate) vs \(style.timeIntervalSinceReferenceDate)")
        }
    }

    @Test(arguments: ["2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-01T24:00:00Z",
                      "2026-01-01T00:60:00Z", "2025-02-29T00:00:00.000Z", "2026-01-01T00:00:00.00Z", "2026-01-01T00:00:00+01:00",
                      "2026-01-01 00:00:00Z", "0000-01-01T00:00:00Z", "2026-01-01T00:00:00.0000Z", "２０２６-01-01T00:00:00Z", ""])
    func otherFormsAreLeftToTheStyles(text: String) {
        #expect(DeckManifest.parseUTCDate(text) == nil)
        let styles = (try? Self.withFraction.parse(text)) ?? (try? Self.withoutFraction.parse(text))
        #expect(DeckManifest.parseDate(text) == styles, "\(text)")
    }

    @Test func aManifestRoundTrips() throws {
        var manifest = DeckManifest(title: "Français \"verbes\" / 日本語\n", created: Date(timeIntervalSince1970: 1_767_225_600.25))
        manifest.modified = Date(timeIntervalSince1970: 1_767_225_601.5)
        let read = try DeckManifest.decode(try manifest.encoded(), path: "m.json")
        #expect(read == manifest)
    }

    /// The refusals name the field as JSONDecoder's did.
    @Test(arguments: [
        ("documentID", nil as String?, "lacks the field \"documentID\""),
        ("title", "7", "manifest field \"title\" has the wrong type"),
        ("formatVersion", "\"2\"", "manifest field \"formatVersion\" has the wrong type"),
        ("store", nil, "lacks the field \"store\""),
        ("created", "\"yesterday\"", "manifest field \"created\": not an ISO 8601 date: yesterday"),
        ("modified", "12", "manifest field \"modified\" has the wrong type"),
        ("documentID", "\"not-a-uuid\"", "manifest field \"documentID\": not a UUID"),
        ("generator", "null", "manifest field \"generator\" has the wrong type"),
    ])
    func aBrokenFieldIsNamed(key: String, json: String?, phrase: String) throws {
        let manifest = DeckManifest(title: "T")
        var object = try #require(try JSONSerialization.jsonObject(with: try manifest.encoded()) as? [String: Any])
        object[key] = try json.map { try JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) }
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try DeckManifest.decode(data, path: "m.json")
            Issue.record("\(key) = \(json ?? "absent") was accepted")
        } catch let error as DeckError {
            #expect(error.kind == .corrupt && error.reason.contains(phrase), "\(error)")
        }
    }
}

/// What the field-by-field reader refuses: everything JSONDecoder refused when it read the
/// manifest (each case is checked against it here), and repeated fields and non-UTF-8 text,
/// which JSONDecoder accepted.
@Suite struct ManifestRefusalTests {
    static let valid = #"{"contentType": "com.example.flashcards", "created": "2026-12-01T18:21:46.628Z", "documentID": "0D20F9EE-33A9-428E-92E2-987D99D325C6", "formatVersion": 2, "generator": "SampleDeck 0.2", "modified": "2026-12-01T18:21:46.674Z", "store": "Deck.sqlite", "title": "T"}"#

    /// The manifest with `field`'s value text replaced by `value`.
    static func with(_ field: String, _ value: String) -> String {
        guard let range = valid.range(of: "\"\(field)\": ") else { return valid }
        let rest = valid[range.upperBound...]
        let end = rest.firstIndex { $0 == "," || $0 == "}" } ?? rest.endIndex
        return String(valid[..<range.upperBound]) + value + String(rest[end...])
    }

    /// JSONDecoder reading the manifest as DeckManifest did before (its dates as ISO 8601 text).
    static func jsonDecoderReads(_ data: Data) -> Bool {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = DeckManifest.parseDate(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date"))
            }
            return date
        }
        return (try? decoder.decode(DeckManifest.self, from: data)) != nil
    }

    static func refusal(_ data: Data) -> DeckError? {
        do {
            _ = try DeckManifest.decode(data, path: "m.json")
            return nil
        } catch let error as DeckError {
            return error
        } catch {
            return DeckError(path: "m.json", reason: "\(error)", kind: .corrupt)
        }
    }

    @Test func theValidManifestReads() throws {
        let manifest = try DeckManifest.decode(Data(Self.valid.utf8), path: "m.json")
        #expect(manifest.title == "T" && manifest.store == "Deck.sqlite" && manifest.formatVersion == 2)
        #expect(Self.jsonDecoderReads(Data(Self.valid.utf8)))
        // What JSONDecoder also accepts: a byte-order mark, 2.0 and 2e0 for 2, unknown fields nested 100 deep.
        for text in ["\u{FEFF}" + Self.valid, Self.with("formatVersion", "2.0"), Self.with("formatVersion", "2e0"),
                     Self.with("title", "\"T\", \"extra\": " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100))] {
            #expect(Self.refusal(Data(text.utf8)) == nil, "\(text)")
            #expect(Self.jsonDecoderReads(Data(text.utf8)), "\(text)")
        }
    }

    /// (what, the manifest's bytes, a phrase of the refusal): JSONDecoder refuses each too.
    static let refusedByBoth: [(String, [UInt8], String)] = [
        ("formatVersion true", Array(with("formatVersion", "true").utf8), "\"formatVersion\" has the wrong type"),
        ("formatVersion \"2\"", Array(with("formatVersion", "\"2\"").utf8), "\"formatVersion\" has the wrong type"),
        ("formatVersion 2.5", Array(with("formatVersion", "2.5").utf8), "\"formatVersion\" has the wrong type"),
        ("formatVersion beyond Int", Array(with("formatVersion", "99999999999999999999").utf8), "\"formatVersion\" has the wrong type"),
        ("formatVersion null", Array(with("formatVersion", "null").utf8), "\"formatVersion\" has the wrong type"),
        ("title a number", Array(with("title", "7").utf8), "\"title\" has the wrong type"),
        ("title false", Array(with("title", "false").utf8), "\"title\" has the wrong type"),
        ("store null", Array(with("store", "null").utf8), "\"store\" has the wrong type"),
        ("created a number", Array(with("created", "1767225600").utf8), "\"created\" has the wrong type"),
        ("documentID an object", Array(with("documentID", "{}").utf8), "\"documentID\" has the wrong type"),
        ("modified an array", Array(with("modified", "[\"2026-12-01T18:21:46.674Z\"]").utf8), "\"modified\" has the wrong type"),
        ("trailing garbage", Array((valid + " x").utf8), "not valid JSON"),
        ("a second object", Array((valid + "{}").utf8), "not valid JSON"),
        ("bad UTF-8", Array(with("title", "\"T").utf8) + [0xFF, 0xFE] + Array("\"}".utf8), "not valid JSON"),
        ("an overlong encoding", Array(with("title", "\"").utf8) + [0xC0, 0xAF] + Array("\"}".utf8), "not valid JSON"),
        ("a lone surrogate", Array(with("title", #""\ud800""#).utf8), "not valid JSON"),
        ("nesting 600 deep", Array(with("title", "\"T\", \"x\": " + String(repeating: "[", count: 600) + String(repeating: "]", count: 600)).utf8), "not valid JSON"),
        ("nesting 10000 deep", Array(with("title", "\"T\", \"x\": " + String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000)).utf8), "not valid JSON"),
        ("a raw control character", Array(with("title", "\"a\tb\"").utf8), "not valid JSON"),
        ("a comment", Array(valid.replacing("{", with: "{ /* c */", maxReplacements: 1).utf8), "not valid JSON"),
        ("an array", Array("[\(valid)]".utf8), "not a JSON object"),
        ("nothing", [], "not valid JSON"),
        ("no contentType", Array(valid.replacing(#""contentType": "com.example.flashcards", "#, with: "").utf8), "no contentType"),
        ("no store", Array(valid.replacing(#", "store": "Deck.sqlite""#, with: "").utf8), "lacks the field \"store\""),
        ("a bad UUID", Array(with("documentID", "\"not-a-uuid\"").utf8), "not a UUID"),
        ("a bad date", Array(with("created", "\"yesterday\"").utf8), "not an ISO 8601 date"),
    ]

    @Test(arguments: refusedByBoth.indices)
    func whatJSONDecoderRefusedIsRefused(_ index: Int) throws {
        let (what, bytes, phrase) = Self.refusedByBoth[index]
        #expect(!Self.jsonDecoderReads(Data(bytes)), "\(what): JSONDecoder reads it")
        let error = try #require(Self.refusal(Data(bytes)), "\(what) was accepted")
        #expect(error.reason.contains(phrase), "\(what): \(error.reason)")
    }

    /// JSONDecoder read these (the first of repeated fields; UTF-16 text); they are refused now.
    static let refusedNow: [(String, [UInt8], String)] = [
        ("store twice", Array(with("store", #""Deck.sqlite", "store": "../elsewhere""#).utf8), "repeats the field \"store\""),
        ("contentType twice", Array(with("contentType", #""com.example.flashcards", "contentType": "com.example.flashcards""#).utf8),
         "repeats the field \"contentType\""),
        ("a field repeated through an escape", Array(with("title", #""T", "\u0074itle": "U""#).utf8), "repeats the field \"title\""),
        ("an unknown field twice", Array(with("title", #""T", "x": [1, {"y": "}"}], "x": 2"#).utf8), "repeats the field \"x\""),
        ("UTF-16", Array(valid.data(using: .utf16LittleEndian) ?? Data()), "not UTF-8"),
        ("UTF-16 with a byte-order mark", [0xFF, 0xFE] + Array(valid.data(using: .utf16LittleEndian) ?? Data()), "not UTF-8"),
    ]

    @Test(arguments: refusedNow.indices)
    func repeatedFieldsAndOtherEncodingsAreRefused(_ index: Int) throws {
        let (what, bytes, phrase) = Self.refusedNow[index]
        let error = try #require(Self.refusal(Data(bytes)), "\(what) was accepted")
        #expect(error.kind == .corrupt && error.reason.contains(phrase), "\(what): \(error.reason)")
    }

    /// The scan of the top level finds keys past nested values and strings holding brackets,
    /// and nothing in a manifest without repeats.
    @Test func theKeyScanWalksOnlyTheTopLevel() {
        #expect(DeckManifest.repeatedKey(inObject: Array(Self.valid.utf8)) == nil)
        #expect(DeckManifest.repeatedKey(inObject: Array(#"{"a": {"b": 1, "b": 2}, "c": ["{", "\"", 3], "d": -1.5e3, "e": true}"#.utf8)) == nil)
        #expect(DeckManifest.repeatedKey(inObject: Array(#"{"a": {"b": [1, {"c": "]}"}]}, "a": null}"#.utf8)) == "a")
        #expect(DeckManifest.repeatedKey(inObject: Array(#"{"\ud83d\ude00": 1, "😀": 2}"#.utf8)) == "😀")
    }
}
