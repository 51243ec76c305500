import CardTemplates
import DeckDocument
import Foundation

/// Exports a deck as one HTML page showing every card as Anki renders it: question and answer
/// through the note type's templates (CardTemplates' Anki-compatible renderer: fields, filters,
/// conditionals, cloze, special fields) styled by the note type's CSS, with media inline as
/// `data:` URLs (default) or in a folder next to the page.
///
/// Each side is a declarative shadow root (`<template shadowrootmode="open">`) holding the note
/// type's CSS and `<div class="card cardN"><div id="qa">…</div></div>`, so each note type's CSS
/// applies to its own cards only, as in Anki's reviewer, and the page needs no script. The page
/// runs none: its Content-Security-Policy allows no script and loads nothing from elsewhere
/// (a template's JavaScript does not run; remote images do not load). `[sound:name]` becomes an
/// `<audio controls>` element, `[[type:Field]]` an input box on the question.
///
/// Cost: one pass over the notes (one in memory at a time); each media file is read and
/// base64-encoded where a card uses it (files under 256 KiB are encoded once and reused).
public struct DeckHTMLExporter: Sendable {
    /// Media files larger than this are not inlined (default 16 MiB): they show as their name.
    public var maximumInlineSize: Int
    /// When set, media files are written into this folder under the names cards use, and the
    /// page refers to them relative to itself; else they are inlined.
    public var mediaFolder: URL?
    /// The folder the page is opened from, which ``mediaFolder`` is referred to relative to
    /// (default: the folder of the file written; give it when that file is a temporary elsewhere).
    public var pageFolder: URL?

    /// Creates an exporter.
    /// Called with the number of notes written so far, now and then and once at the end (for a
    /// progress bar).
    public var progress: (@Sendable (Int) -> Void)?

    public init(maximumInlineSize: Int = 16 << 20, mediaFolder: URL? = nil, pageFolder: URL? = nil) {
        self.maximumInlineSize = maximumInlineSize
        self.mediaFolder = mediaFolder
        self.pageFolder = pageFolder
    }

    /// Writes the page for the saved notes of `document` to `url` (under a temporary name, then renamed).
    /// - Throws: ``InterchangeError`` when writing fails (nothing is left at `url`); the store's error.
    public func export(_ document: DeckDocument, to url: URL) throws {
        try document.verifyValues()
        let contents = try document.contents()
        let media = Dictionary(contents.media.flatMap { item in item.names.map { ($0, item) } }, uniquingKeysWith: { first, _ in first })
        var base: String?
        if let mediaFolder {
            try writeMediaFolder(mediaFolder, contents.media, from: document)
            base = Self.relativePath(from: pageFolder ?? url.deletingLastPathComponent(), to: mediaFolder) + "/"
        }
        let out = try OutputFile(url)
        defer { out.discard() }
        let sources = base == nil ? "data:" : "data: 'self' file:"
        try out.write("""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src \(sources); media-src \(sources); font-src \(sources)">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="\(Self.escape(DeckManifest.generatorName))">
            <title>\(Self.escape(contents.title))</title>

            """)
        if let base { try out.write("<base href=\"\(Self.escape(Self.percentEncoded(base)))\">\n") }
        try out.write("""
            <style>
            body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; background: #f4f4f4; }
            .entry { border: 1px solid #ccc; border-radius: 6px; margin: 1em 0; background: #fff; break-inside: avoid; overflow: hidden; }
            .entry > header { color: #555; font-size: 0.85em; padding: 0.4em 0.8em; border-bottom: 1px solid #ddd; background: #fafafa; }
            .tag { background: #eee; border-radius: 3px; padding: 0 0.3em; margin-left: 0.3em; }
            .sides { display: grid; grid-template-columns: 1fr 1fr; }
            .side { min-width: 0; border-left: 1px solid #eee; }
            .side:first-child { border-left: none; }
            .side > h3 { margin: 0; padding: 0.2em 0.8em; font-size: 0.75em; font-weight: normal; color: #888; }
            @media (max-width: 40em) { .sides { grid-template-columns: 1fr; } }
            </style>
            </head>
            <body>
            <h1>\(Self.escape(contents.title))</h1>

            """)
        if !contents.description.isEmpty { try out.write("<p class=\"description\">\(Self.escape(contents.description))</p>\n") }
        let layouts = Dictionary(contents.noteTypes.map { type in
            (type.id, (Self.layout(of: type), type))
        }, uniquingKeysWith: { first, _ in first })
        let decks = Dictionary(contents.decks.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var resolver = MediaResolver(document: document, media: media, inline: base == nil, maximumInlineSize: maximumInlineSize)
        var count = 0
        var notes = 0
        try document.forEachNoteRecord { note in
            notes += 1
            if notes & 63 == 0 { progress?(notes) }
            guard let (layout, type) = layouts[note.noteType] else { return }
            for card in note.cards {
                count += 1
                let deck = (card.originalDeck ?? card.deck).flatMap { decks[$0] } ?? "(Deck)"
                let rendered = layout.render(ordinal: card.ordinal, fieldValues: note.fields,
                                             context: CardContext(tags: note.tags, deckName: deck, flag: card.flag, cardID: card.id))
                let templateName = type.kind == 1 ? "Cloze \(card.ordinal + 1)"
                    : layout.templates.indices.contains(card.ordinal) ? layout.templates[card.ordinal].name : "Card \(card.ordinal + 1)"
                var html = "<article class=\"entry\" id=\"card-\(card.id)\">\n<header><span class=\"notetype\">\(Self.escape(type.name))</span>"
                html += " · <span class=\"template\">\(Self.escape(templateName))</span> · <span class=\"deck\">\(Self.escape(deck))</span>"
                for tag in note.tags { html += "<span class=\"tag\">\(Self.escape(tag))</span>" }
                html += "</header>\n<div class=\"sides\">\n"
                let css = try Self.pageCSS(rendered.css, media: { try resolver.url(for: $0) })
                for (side, text) in [(Side.question, rendered.question), (.answer, rendered.answer)] {
                    let body = try Self.pageHTML(text, side: side, media: { try resolver.url(for: $0) })
                    html += "<div class=\"side \(side.rawValue)\"><h3>\(side == .question ? "Question" : "Answer")</h3>"
                    html += Self.shadowCard(body, css: css, ordinal: card.ordinal) + "</div>\n"
                }
                html += "</div>\n</article>\n"
                try out.write(html)
            }
        }
        progress?(notes)
        try out.write("<p class=\"count\">\(count) card\(count == 1 ? "" : "s")</p>\n</body>\n</html>\n")
        try out.commit()
    }

    /// Which side of a card.
    public enum Side: String, Sendable {
        case question, answer
    }

    /// The layout CardTemplates renders a note type with.
    static func layout(of type: NoteTypeRecord) -> NoteLayout {
        NoteLayout(name: type.name, kind: type.kind == 1 ? .cloze : .standard,
                   fieldNames: type.fields.sorted { $0.ordinal < $1.ordinal }.map(\.name),
                   templates: type.templates.sorted { $0.ordinal < $1.ordinal }.map {
                       CardLayout(name: $0.name, questionFormat: $0.questionFormat, answerFormat: $0.answerFormat,
                                  browserQuestionFormat: $0.browserQuestionFormat, browserAnswerFormat: $0.browserAnswerFormat)
                   }, css: type.css)
    }

    /// One side as the page holds it: a shadow root with the note type's CSS and the card in
    /// Anki's reviewer markup (`.card.cardN` holding `#qa`).
    public static func shadowCard(_ body: String, css: String, ordinal: Int) -> String {
        "<div class=\"render\"><template shadowrootmode=\"open\"><style>\(css)</style>"
            + "<div class=\"card card\(ordinal + 1)\"><div id=\"qa\">\(body)</div></div></template></div>"
    }

    /// A rendered side (CardTemplates' or Anki's `question_text`/`answer_text` with sound tags
    /// as `[sound:name]`) as the page shows it: media sources (`src`/`data` of img, audio, video,
    /// source, object, embed, track, and `[sound:name]` as `<audio controls>`) replaced by what
    /// `media` returns for their names (nil leaves them), `[[type:…]]` as an input box on the
    /// question (nothing on the answer), and `</template` defused so the side stays inside its
    /// shadow root.
    public static func pageHTML(_ html: String, side: Side, media: (String) throws -> String?) throws -> String {
        let b = Array(html.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        func starts(_ text: String, at index: Int, caseInsensitive: Bool = false) -> Bool {
            let t = Array(text.utf8)
            guard index + t.count <= b.count else { return false }
            for k in 0..<t.count {
                let c = b[index + k]
                if caseInsensitive ? lower(c) != lower(t[k]) : c != t[k] { return false }
            }
            return true
        }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "["), starts("[sound:", at: i), let close = b[(i + 7)...].firstIndex(of: UInt8(ascii: "]")) {
                let name = String(decoding: b[(i + 7)..<close], as: UTF8.self)
                if let url = try media(name) {
                    out += Array("<audio controls src=\"\(escape(url))\" title=\"\(escape(name))\"></audio>".utf8)
                } else {
                    out += b[i...close]
                }
                i = close + 1
                continue
            }
            if c == UInt8(ascii: "["), starts("[[type:", at: i), let close = findSequence(b, Array("]]".utf8), from: i + 7) {
                if side == .question { out += Array("<input type=\"text\" id=\"typeans\" class=\"typeans\" disabled>".utf8) }
                i = close + 2
                continue
            }
            if c == UInt8(ascii: "<") {
                if starts("<!--", at: i) {
                    let end = findSequence(b, Array("-->".utf8), from: i + 4).map { $0 + 3 } ?? b.count
                    out += b[i..<end]
                    i = end
                    continue
                }
                if starts("</template", at: i, caseInsensitive: true) {
                    out += Array("&lt;/template".utf8)
                    i += 10
                    continue
                }
                if let tag = try rewriteTag(b, at: i, media: media) {
                    out += tag.text
                    i = tag.end
                    continue
                }
            }
            out.append(c)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The note type's CSS for a shadow root's `<style>`: `url(name)` of media replaced, and
    /// `</style` and `</template` defused.
    public static func pageCSS(_ css: String, media: (String) throws -> String?) throws -> String {
        let b = Array(css.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            if i + 4 <= b.count, lower(b[i]) == UInt8(ascii: "u"), lower(b[i + 1]) == UInt8(ascii: "r"), lower(b[i + 2]) == UInt8(ascii: "l"),
               b[i + 3] == UInt8(ascii: "(") {
                var j = i + 4
                while j < b.count, b[j] == 0x20 { j += 1 }
                let quote: UInt8? = j < b.count && (b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'")) ? b[j] : nil
                let start = quote == nil ? j : j + 1
                if let end = b[start...].firstIndex(of: quote ?? UInt8(ascii: ")")) {
                    var valueEnd = end
                    if quote == nil { while valueEnd > start, b[valueEnd - 1] == 0x20 { valueEnd -= 1 } }
                    let name = String(decoding: b[start..<valueEnd], as: UTF8.self)
                    if let url = try media(name) {
                        out += Array("url(\"\(url)\"".utf8)
                        i = quote == nil ? end : end + 1
                        continue
                    }
                }
            }
            if b[i] == UInt8(ascii: "<"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "/") {
                out += Array("<\\/".utf8)
                i += 2
                continue
            }
            out.append(b[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let mediaTags: Set<String> = ["img", "audio", "video", "source", "object", "embed", "track"]

    /// A media tag at `start` with its `src` (or `data`) value replaced, and where the tag ends; nil for other markup.
    private static func rewriteTag(_ b: [UInt8], at start: Int, media: (String) throws -> String?) throws -> (text: [UInt8], end: Int)? {
        var i = start + 1
        let nameStart = i
        while i < b.count, isNameByte(b[i]) { i += 1 }
        guard i > nameStart else { return nil }
        let tagName = String(decoding: b[nameStart..<i].map(lower), as: UTF8.self)
        guard mediaTags.contains(tagName) else { return nil }
        var out = Array(b[start..<i])
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: ">") {
                out.append(c)
                return (out, i + 1)
            }
            guard isNameByte(c) else {
                out.append(c)
                i += 1
                continue
            }
            let attrStart = i
            while i < b.count, isNameByte(b[i]) || b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: ":") { i += 1 }
            let attribute = String(decoding: b[attrStart..<i].map(lower), as: UTF8.self)
            out += b[attrStart..<i]
            var j = i
            while j < b.count, isSpace(b[j]) { j += 1 }
            guard j < b.count, b[j] == UInt8(ascii: "=") else { continue }
            j += 1
            while j < b.count, isSpace(b[j]) { j += 1 }
            let valueStart = j
            var valueEnd: Int
            var rawValue: ArraySlice<UInt8>
            if j < b.count, b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") {
                guard let close = b[(j + 1)...].firstIndex(of: b[j]) else { return nil }
                rawValue = b[(j + 1)..<close]
                valueEnd = close + 1
            } else {
                while j < b.count, !isSpace(b[j]), b[j] != UInt8(ascii: ">") { j += 1 }
                rawValue = b[valueStart..<j]
                valueEnd = j
            }
            let isSource = attribute == "src" || (attribute == "data" && tagName == "object")
            if isSource, let url = try media(decodeEntities(String(decoding: rawValue, as: UTF8.self))) {
                out += Array("=\"\(escape(url))\"".utf8)
            } else {
                out += b[i..<valueEnd]
            }
            i = valueEnd
        }
        return nil
    }

    private static func findSequence(_ b: [UInt8], _ needle: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start <= b.count - needle.count else { return nil }
        var i = start
        while i <= b.count - needle.count {
            if b[i] == needle[0], Array(b[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    private static func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c + 32 : c }
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C }
    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }

    /// The character references an attribute value may hold for a file name.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let tail = rest[amp...]
            guard let semicolon = tail.prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = String(tail[tail.index(after: amp)..<semicolon])
            let named: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]
            var decoded = named[entity]
            if decoded == nil, entity.hasPrefix("#") {
                let digits = entity.dropFirst()
                let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                decoded = value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            }
            if let decoded {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
            }
        }
        return result + rest
    }

    /// Writes each media name whose text is a plain file name into `folder` (created if missing).
    private func writeMediaFolder(_ folder: URL, _ media: [MediaRecord], from document: DeckDocument) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw InterchangeError(.cannotCreate, path: folder.path, reason: "can't create the media folder: \(error.localizedDescription)")
        }
        for item in media {
            let data = try document.readMedia(named: item.fileName)
            for name in item.names where Self.isPlainFileName(name) {
                let target = folder.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: target.path) {
                    guard FileManager.default.contents(atPath: target.path) == data else {
                        throw InterchangeError(.cannotCreate, path: target.path, reason: "already exists with other contents")
                    }
                    continue
                }
                let out = try OutputFile(target)
                defer { out.discard() }
                try out.write(data)
                try out.commit()
            }
        }
    }

    static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && !name.hasPrefix(".") && !name.utf8.contains(0)
    }

    /// `to` relative to the folder `from` (both made absolute), with `..` where needed.
    static func relativePath(from: URL, to: URL) -> String {
        let a = from.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let b = to.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < a.count, common < b.count, a[common] == b[common] { common += 1 }
        let parts = Array(repeating: "..", count: a.count - common) + b[common...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    static func percentEncoded(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    /// Text safe in HTML content and attribute values: `& < > " '` as character references.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}

/// The URL a page uses for a media name: a `data:` URL (read once per small file) or the
/// name relative to the page's `<base>` (the media folder).
struct MediaResolver {
    let document: DeckDocument
    let media: [String: MediaRecord]
    let inline: Bool
    let maximumInlineSize: Int
    var cache: [String: String] = [:]

    init(document: DeckDocument, media: [String: MediaRecord], inline: Bool, maximumInlineSize: Int) {
        self.document = document
        self.media = media
        self.inline = inline
        self.maximumInlineSize = maximumInlineSize
    }

    mutating func url(for name: String) throws -> String? {
        guard let item = media[name] else { return nil }
        guard inline else { return DeckHTMLExporter.isPlainFileName(name) ? DeckHTMLExporter.percentEncoded(name) : nil }
        if let cached = cache[item.fileName] { return cached }
        guard item.size <= maximumInlineSize else { return nil }
        // The name is checked, the file opened without following links and required to be regular.
        let data = try document.readMedia(named: item.fileName)
        let mime = item.mime.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || "/+.-".utf8.contains($0) }
            && !item.mime.isEmpty ? item.mime : "application/octet-stream"
        let url = "data:\(mime);base64,\(data.base64EncodedString())"
        if data.count < 256 << 10 { cache[item.fileName] = url }
        return url
    }
}
