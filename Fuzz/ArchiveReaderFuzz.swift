// libFuzzer target: the archive reader (zip, tar.gz/xz/zst) over any bytes, reading every
// entry's data within the default limits.
import Archive
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchiveReader(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    var limits = ArchiveLimits.default
    limits.maxEntries = 64
    limits.maxTotalSize = 8 << 20
    guard let reader = try? ArchiveReader(data: data, limits: limits) else { return 0 }
    do {
        while let entry = try reader.nextEntry() {
            _ = entry.path
            if entry.type == .file { _ = try reader.readData() }
        }
    } catch {}
    return 0
}
