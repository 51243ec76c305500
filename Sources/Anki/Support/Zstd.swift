import Foundation
internal import CZstd

/// zstd compression as used by current Anki packages (`collection.anki21b`, media files, the media list).
///
/// Decompression is streaming with a bounded window and a cap on the expanded size, so a
/// "zstd bomb" fails with ``AnkiError/Kind/limitExceeded`` instead of filling memory or disk.
package enum Zstd {
    /// The largest window (log2 bytes) a frame may ask for: 2^24 = 16 MiB. Anki compresses at
    /// its default level, whose window is far smaller; `--long`/ultra frames are refused.
    package static let maxWindowLog: Int32 = 24

    /// Whether `prefix` starts with the zstd frame magic number (0xFD2FB528, little-endian).
    package static func hasFrameMagic(_ prefix: some DataProtocol) -> Bool {
        Array(prefix.prefix(4)) == [0x28, 0xB5, 0x2F, 0xFD]
    }

    /// Compresses `data` into one zstd frame at `level` (1…19; 3 is zstd's default).
    ///
    /// - Throws: ``AnkiError`` of kind ``AnkiError/Kind/io`` if zstd reports an error.
    package static func compress(_ data: Data, level: Int32 = 3) throws -> Data {
        let bound = ZSTD_compressBound(data.count)
        var output = Data(count: bound)
        let written = data.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                ZSTD_compress(destination.baseAddress, bound, source.baseAddress, source.count, level)
            }
        }
        if ZSTD_isError(written) != 0 {
            throw AnkiError(.io, path: "", reason: "zstd compression failed: \(errorName(written))")
        }
        output.count = written
        return output
    }

    /// Decompresses every frame in `data` into memory, refusing more than `limit` bytes of output.
    ///
    /// - Throws: ``AnkiError`` of kind ``AnkiError/Kind/malformedCompression`` for a corrupt or
    ///   truncated stream, ``AnkiError/Kind/limitExceeded`` past `limit`. `path` names the source in errors.
    package static func decompress(_ data: Data, limit: Int, path: String = "") throws -> Data {
        var output = Data()
        try data.withUnsafeBytes { source in
            let decoder = try Decoder(path: path)
            try decoder.feed(source, final: true) { chunk in
                if output.count + chunk.count > limit {
                    throw AnkiError(.limitExceeded, path: path,
                                    reason: "zstd data expands past the limit of \(limit) bytes")
                }
                output.append(contentsOf: chunk)
            }
        }
        return output
    }

    /// Streams the zstd file at `source` (or the byte `range` of it, such as a stored zip entry)
    /// into a new file at `destination`, in bounded memory.
    ///
    /// `destination` must not exist; on failure it is removed. Returns the number of bytes written.
    /// - Throws: ``AnkiError`` (``AnkiError/Kind/malformedCompression``, ``AnkiError/Kind/limitExceeded``
    ///   past `limit` bytes of output, ``AnkiError/Kind/io``).
    @discardableResult
    package static func decompress(file source: URL, range: Range<Int64>? = nil, to destination: URL, limit: Int64,
                                   path: String? = nil) throws -> Int64 {
        let name = path ?? source.path
        let input = try FileStream(reading: source, path: name)
        defer { input.close() }
        if let range { try input.seek(to: range.lowerBound) }
        var remaining = range.map { $0.upperBound - $0.lowerBound } ?? .max
        let output = try FileStream(creating: destination, path: destination.path)
        var written: Int64 = 0
        do {
            let decoder = try Decoder(path: name)
            var buffer = [UInt8](repeating: 0, count: ZSTD_DStreamInSize())
            while true {
                let count = try input.read(into: &buffer, maxCount: Int(clamping: remaining))
                remaining -= Int64(count)
                try buffer.withUnsafeBytes { raw in
                    try decoder.feed(UnsafeRawBufferPointer(rebasing: raw[0..<count]), final: count == 0) { chunk in
                        written += Int64(chunk.count)
                        if written > limit {
                            throw AnkiError(.limitExceeded, path: name,
                                            reason: "zstd data expands past the limit of \(limit) bytes")
                        }
                        try output.write(chunk)
                    }
                }
                if count == 0 { break }
            }
            try output.finish()
        } catch {
            output.close()
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
        return written
    }

    /// Streams the file at `source` into a new file at `destination` as one zstd frame at
    /// `level`, in bounded memory; `observe` sees every uncompressed chunk (to hash it).
    ///
    /// `destination` must not exist; on failure it is removed. Returns the uncompressed size.
    /// - Throws: ``AnkiError`` of kind ``AnkiError/Kind/io``.
    @discardableResult
    package static func compress(file source: URL, to destination: URL, level: Int32 = 3,
                                 observe: (UnsafeRawBufferPointer) -> Void = { _ in }) throws -> Int64 {
        let input = try FileStream(reading: source, path: source.path)
        defer { input.close() }
        let output = try FileStream(creating: destination, path: destination.path)
        guard let stream = ZSTD_createCCtx() else {
            output.close()
            try? FileManager.default.removeItem(at: destination)
            throw AnkiError(.io, path: source.path, reason: "cannot create a zstd encoder")
        }
        defer { ZSTD_freeCCtx(stream) }
        var total: Int64 = 0
        do {
            let status = ZSTD_CCtx_setParameter(stream, ZSTD_c_compressionLevel, level)
            if ZSTD_isError(status) != 0 { throw AnkiError(.io, path: source.path, reason: "zstd: \(errorName(status))") }
            var buffer = [UInt8](repeating: 0, count: ZSTD_CStreamInSize())
            var out = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
            while true {
                let count = try input.read(into: &buffer)
                total += Int64(count)
                let last = count == 0
                try buffer.withUnsafeBytes { raw in
                    let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<count])
                    if count > 0 { observe(chunk) }
                    var inBuffer = ZSTD_inBuffer(src: chunk.baseAddress, size: count, pos: 0)
                    var finished = false
                    while !finished {
                        let (remaining, produced) = out.withUnsafeMutableBytes { target in
                            var outBuffer = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
                            let remaining = ZSTD_compressStream2(stream, &outBuffer, &inBuffer, last ? ZSTD_e_end : ZSTD_e_continue)
                            return (remaining, outBuffer.pos)
                        }
                        if ZSTD_isError(remaining) != 0 {
                            throw AnkiError(.io, path: source.path, reason: "zstd compression failed: \(errorName(remaining))")
                        }
                        if produced > 0 { try out.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) } }
                        finished = last ? remaining == 0 : inBuffer.pos == inBuffer.size
                    }
                }
                if last { break }
            }
            try output.finish()
        } catch {
            output.close()
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
        return total
    }

    static func errorName(_ code: Int) -> String {
        String(cString: ZSTD_getErrorName(code))
    }

    /// A streaming decoder over one `ZSTD_DStream`, freed on deinit.
    final class Decoder {
        private let stream: OpaquePointer
        private let path: String
        private var output: [UInt8]
        /// Whether the last frame seen is complete (zstd returned 0 after it).
        private var atFrameBoundary = true
        private var sawInput = false

        init(path: String) throws {
            guard let stream = ZSTD_createDStream() else {
                throw AnkiError(.io, path: path, reason: "cannot create a zstd decoder")
            }
            let status = ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, Zstd.maxWindowLog)
            if ZSTD_isError(status) != 0 {
                ZSTD_freeDStream(stream)
                throw AnkiError(.io, path: path, reason: "zstd: \(Zstd.errorName(status))")
            }
            self.stream = stream
            self.path = path
            self.output = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        }

        deinit { ZSTD_freeDStream(stream) }

        /// Decodes `input`, handing each produced chunk to `sink`. With `final`, checks that the
        /// stream ended on a complete frame.
        func feed(_ input: UnsafeRawBufferPointer, final: Bool,
                           sink: (UnsafeRawBufferPointer) throws -> Void) throws {
            var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
            if input.count > 0 { sawInput = true }
            while inBuffer.pos < inBuffer.size {
                let (status, produced) = output.withUnsafeMutableBytes { out in
                    var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                    let status = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
                    return (status, outBuffer.pos)
                }
                if ZSTD_isError(status) != 0 {
                    let name = Zstd.errorName(status)
                    let kind: AnkiError.Kind = name.contains("memory") ? .limitExceeded : .malformedCompression
                    throw AnkiError(kind, path: path, reason: "zstd: \(name)")
                }
                if produced > 0 {
                    try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
                }
                atFrameBoundary = status == 0
            }
            // Flush what the decoder still holds once the input is consumed.
            while !atFrameBoundary && inBuffer.pos == inBuffer.size {
                let (status, produced) = output.withUnsafeMutableBytes { out in
                    var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                    let status = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
                    return (status, outBuffer.pos)
                }
                if ZSTD_isError(status) != 0 {
                    throw AnkiError(.malformedCompression, path: path, reason: "zstd: \(Zstd.errorName(status))")
                }
                if produced > 0 {
                    try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
                }
                atFrameBoundary = status == 0
                if produced == 0 { break }
            }
            if final {
                if !sawInput {
                    throw AnkiError(.malformedCompression, path: path, reason: "zstd: empty input")
                }
                if !atFrameBoundary {
                    throw AnkiError(.malformedCompression, path: path, reason: "zstd: data is truncated")
                }
            }
        }
    }
}
