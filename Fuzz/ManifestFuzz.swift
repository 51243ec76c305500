// libFuzzer target: the deck manifest reader. Any bytes must decode or throw DeckError.
import DeckDocument
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let manifest = try? DeckManifest.decode(data, path: "manifest.json") {
        // What decodes must encode and decode to the same manifest.
        guard let encoded = try? manifest.encoded(), let again = try? DeckManifest.decode(encoded, path: "manifest.json") else {
            fatalError("a decoded manifest does not encode and decode again")
        }
        if again.documentID != manifest.documentID || again.title != manifest.title || again.store != manifest.store {
            fatalError("manifest round trip changed it")
        }
    }
    return 0
}
