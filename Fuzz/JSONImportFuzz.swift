// libFuzzer target: the JSON import (SampleDeck's own export format, versions 1 and 2) into
// a deck on /dev/shm. Any bytes must import or throw an error, never trap; a refused input
// adds nothing. The deck is made again every 200 inputs that imported, so it stays small.
import DeckDocument
import Foundation
import Interchange

nonisolated(unsafe) let fuzzDirectory: URL = {
    let url = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("json-fuzz-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()
nonisolated(unsafe) var document: DeckDocument?
nonisolated(unsafe) var imported = 0

func freshDocument() -> DeckDocument? {
    try? document?.close()
    let url = fuzzDirectory.appendingPathComponent("Fuzz.sampledeck")
    try? FileManager.default.removeItem(at: url)
    return try? DeckDocument.create(at: url, title: "Fuzz")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONImport(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if document == nil || imported >= 200 {
        document = freshDocument()
        imported = 0
    }
    guard let document else { fatalError("cannot create the fuzz deck in \(fuzzDirectory.path)") }
    let data = Data(bytes: bytes, count: count)
    let before = (try? document.cardCount()) ?? -1
    do {
        try DeckJSONImporter().importData(data, path: "fuzz.json", mediaFolder: nil, into: document)
        imported += 1
    } catch {
        // A refused input adds nothing.
        let after = (try? document.cardCount()) ?? -1
        if after != before { fatalError("a refused JSON import changed the deck: \(before) -> \(after) cards: \(error)") }
    }
    return 0
}
