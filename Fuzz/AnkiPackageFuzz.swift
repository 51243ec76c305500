// libFuzzer target: the Anki package reader (.apkg/.colpkg: zip, SQLite collection, zstd,
// protobuf, media JSON) over any bytes, reading every note, card and review.
import Anki
import Foundation

nonisolated(unsafe) let fuzzDirectory: URL = {
    let url = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("anki-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAnkiPackage(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let file = fuzzDirectory.appendingPathComponent("input.apkg")
    guard (try? Data(bytes: bytes, count: count).write(to: file)) != nil else { return 0 }
    guard let reader = try? AnkiPackageReader(url: file, temporaryDirectory: fuzzDirectory) else { return 0 }
    defer { reader.close() }
    try? reader.forEachNote { _ = $0.fields }
    try? reader.forEachCard { _ = $0 }
    try? reader.forEachReview { _ = $0 }
    return 0
}
