// libFuzzer target: the CSV/TSV reader, in both dialects. Any bytes must give records or
// a CSVError, never a crash or unbounded memory.
import Foundation
import Interchange

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSVReader(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    for dialect in [CSVDialect.csv, CSVDialect.tsv] {
        var reader = CSVReader(data: data, dialect: dialect, path: "fuzz")
        var records = 0
        do {
            _ = try reader.readHeader()
            while let record = try reader.next() {
                records += 1
                _ = record
            }
        } catch {}
    }
    return 0
}
