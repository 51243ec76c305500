import Foundation
import TestSupport

/// A fresh directory for one test (the shared ``TemporaryTree``).
typealias TemporaryDirectory = TemporaryTree

extension TemporaryTree {
    /// A path inside the directory (not created).
    func path(_ name: String) -> URL { file(name) }
}

/// Runs a program found on PATH and returns its exit status and output (stdout, then stderr).
@discardableResult
func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, output: String) {
    let result = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [executable] + arguments, in: directory)
    return (result.status, result.stdout + result.stderr)
}

/// Deterministic, poorly compressible bytes (so sizes and ratios in tests are predictable).
func pseudoRandomBytes(_ count: Int, seed: UInt64) -> Data {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return Data(bytes)
}
