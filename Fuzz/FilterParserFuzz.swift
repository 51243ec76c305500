// libFuzzer target: the `--where` filter parser. Any text must parse or throw a
// FilterSyntaxError; what parses must print to text that parses to the same expression.
import DeckFilter

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilterParser(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    guard let expression = try? FilterParser.parse(text) else { return 0 }
    let printed = expression.description
    guard let again = try? FilterParser.parse(printed) else {
        fatalError("printed filter does not parse: \(printed)")
    }
    if again != expression { fatalError("round trip changed the filter: \(printed)") }
    return 0
}
