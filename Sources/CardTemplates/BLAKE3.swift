/// BLAKE3 (unkeyed, 32-byte output), written from the specification: Anki names the `hint`
/// filter's element ids after the first 8 bytes of the BLAKE3 hash of the field text and name.
enum BLAKE3 {
    private static let iv: [UInt32] = [
        0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
    ]
    private static let permutation = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8]
    private static let chunkStart: UInt32 = 1
    private static let chunkEnd: UInt32 = 2
    private static let parent: UInt32 = 4
    private static let root: UInt32 = 8
    private static let chunkLength = 1024
    private static let blockLength = 64

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    @inline(__always)
    private static func g(_ s: inout [UInt32], _ a: Int, _ b: Int, _ c: Int, _ d: Int, _ x: UInt32, _ y: UInt32) {
        s[a] = s[a] &+ s[b] &+ x
        s[d] = rotr(s[d] ^ s[a], 16)
        s[c] = s[c] &+ s[d]
        s[b] = rotr(s[b] ^ s[c], 12)
        s[a] = s[a] &+ s[b] &+ y
        s[d] = rotr(s[d] ^ s[a], 8)
        s[c] = s[c] &+ s[d]
        s[b] = rotr(s[b] ^ s[c], 7)
    }

    private static func compress(_ cv: [UInt32], _ block: [UInt32], _ counter: UInt64, _ length: UInt32, _ flags: UInt32) -> [UInt32] {
        var s: [UInt32] = cv
        s.append(contentsOf: iv[0..<4])
        s.append(UInt32(truncatingIfNeeded: counter))
        s.append(UInt32(truncatingIfNeeded: counter >> 32))
        s.append(length)
        s.append(flags)
        var m = block
        for round in 0..<7 {
            g(&s, 0, 4, 8, 12, m[0], m[1])
            g(&s, 1, 5, 9, 13, m[2], m[3])
            g(&s, 2, 6, 10, 14, m[4], m[5])
            g(&s, 3, 7, 11, 15, m[6], m[7])
            g(&s, 0, 5, 10, 15, m[8], m[9])
            g(&s, 1, 6, 11, 12, m[10], m[11])
            g(&s, 2, 7, 8, 13, m[12], m[13])
            g(&s, 3, 4, 9, 14, m[14], m[15])
            if round < 6 { m = permutation.map { m[$0] } }
        }
        for i in 0..<8 {
            s[i] ^= s[i + 8]
            s[i + 8] ^= cv[i]
        }
        return s
    }

    private static func words(_ bytes: ArraySlice<UInt8>) -> [UInt32] {
        var block = [UInt8](bytes)
        block.append(contentsOf: repeatElement(0, count: blockLength - block.count))
        var out = [UInt32](repeating: 0, count: 16)
        for i in 0..<16 {
            var word: UInt32 = 0
            for k in 0..<4 { word |= UInt32(block[4 * i + k]) << UInt32(8 * k) }
            out[i] = word
        }
        return out
    }

    /// A node whose compression is still to be done, so the root flag can be added last.
    private struct Output {
        var cv: [UInt32]
        var block: [UInt32]
        var counter: UInt64
        var length: UInt32
        var flags: UInt32

        var chainingValue: [UInt32] { Array(compress(cv, block, counter, length, flags)[0..<8]) }
        var rootBytes: [UInt8] {
            var bytes: [UInt8] = []
            for word in compress(cv, block, 0, length, flags | root)[0..<8] {
                for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: word >> UInt32(8 * k))) }
            }
            return bytes
        }
    }

    private static func chunkOutput(_ chunk: ArraySlice<UInt8>, counter: UInt64) -> Output {
        var cv = iv
        var start = chunk.startIndex
        var flags = chunkStart
        while chunk.endIndex - start > blockLength {
            let block = words(chunk[start..<(start + blockLength)])
            cv = Array(compress(cv, block, counter, UInt32(blockLength), flags)[0..<8])
            flags = 0
            start += blockLength
        }
        let last = chunk[start..<chunk.endIndex]
        return Output(cv: cv, block: words(last), counter: counter, length: UInt32(last.count), flags: flags | chunkEnd)
    }

    private static func parentOutput(_ left: [UInt32], _ right: [UInt32]) -> Output {
        Output(cv: iv, block: left + right, counter: 0, length: UInt32(blockLength), flags: parent)
    }

    /// The 32-byte hash of `input`.
    static func hash(_ input: [UInt8]) -> [UInt8] {
        var stack: [[UInt32]] = []
        var offset = 0
        var counter: UInt64 = 0
        while input.count - offset > chunkLength {
            var cv = chunkOutput(input[offset..<(offset + chunkLength)], counter: counter).chainingValue
            counter += 1
            var total = counter
            while total & 1 == 0, let left = stack.popLast() {
                cv = parentOutput(left, cv).chainingValue
                total >>= 1
            }
            stack.append(cv)
            offset += chunkLength
        }
        var output = chunkOutput(input[offset..<input.count], counter: counter)
        while let left = stack.popLast() {
            output = parentOutput(left, output.chainingValue)
        }
        return output.rootBytes
    }
}
