// libFuzzer target: the protobuf messages of current Anki packages and collections (the
// package's `meta`, the media list, and the config blobs of notetypes, fields, templates,
// decks and presets). The first byte picks the reader; any bytes must decode or throw.
// Internal readers: the Anki module is a debug build (-enable-testing).
@testable import Anki

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAnkiProtobuf(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let body = Array(UnsafeBufferPointer(start: bytes + 1, count: count - 1))
    let path = "fuzz"
    do {
        switch bytes[0] % 10 {
        case 0: _ = try PackageMetadata(decoding: body, path: path)
        case 1: _ = try MediaEntries(decoding: body, path: path)
        case 2: _ = try NotetypeConfig(decoding: body, path: path)
        case 3: _ = try TemplateConfig(decoding: body, path: path)
        case 4: _ = try DeckKind(decoding: body, path: path)
        case 5:
            var type = AnkiNoteType(id: 1, name: "fuzz", fields: [], templates: [])
            _ = try SchemaConfig.readNotetype(body, into: &type, path: path)
        case 6:
            var field = AnkiNoteType.Field(name: "Front", ordinal: 0)
            _ = try SchemaConfig.readField(body, into: &field, path: path)
        case 7:
            var template = AnkiNoteType.Template(name: "Card 1", ordinal: 0, questionFormat: "{{Front}}", answerFormat: "{{Back}}")
            _ = try SchemaConfig.readTemplate(body, into: &template, path: path)
        case 8:
            var deck = AnkiDeck(id: 1, name: "fuzz")
            let half = body.count / 2
            _ = try SchemaConfig.readDeck(common: Array(body[..<half]), kind: Array(body[half...]), into: &deck, path: path)
        default:
            var preset = AnkiPreset(id: 1)
            _ = try SchemaConfig.readPreset(body, into: &preset, path: path)
        }
    } catch {}
    return 0
}
