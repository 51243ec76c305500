/// A strict UTF-8 validator (Unicode 15, table 3-7): overlong forms, surrogates and values
/// past U+10FFFF are invalid. Used on fields that hold non-ASCII bytes, before the one
/// decoding into `String` (which would silently repair them).
enum UTF8Validation {
    /// The offset of the first byte that does not start a well-formed sequence, or `nil` when
    /// all of `bytes` is valid UTF-8.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = bytes.count
        var i = 0
        while i < n {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            func continuation(_ k: Int) -> Bool { i + k < n && bytes[i + k] & 0xC0 == 0x80 }
            switch lead {
            case 0xC2...0xDF:
                guard continuation(1) else { return i }
                i += 2
            case 0xE0...0xEF:
                guard i + 2 < n else { return i }
                let second = bytes[i + 1]
                let secondOK: Bool = switch lead {
                case 0xE0: second >= 0xA0 && second <= 0xBF
                case 0xED: second >= 0x80 && second <= 0x9F
                default: second & 0xC0 == 0x80
                }
                guard secondOK, continuation(2) else { return i }
                i += 3
            case 0xF0...0xF4:
                guard i + 3 < n else { return i }
                let second = bytes[i + 1]
                let secondOK: Bool = switch lead {
                case 0xF0: second >= 0x90 && second <= 0xBF
                case 0xF4: second >= 0x80 && second <= 0x8F
                default: second & 0xC0 == 0x80
                }
                guard secondOK, continuation(2), continuation(3) else { return i }
                i += 4
            default:
                return i
            }
        }
        return nil
    }
}
