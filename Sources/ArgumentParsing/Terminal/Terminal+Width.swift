#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Terminal {
    /// The width of the terminal a file descriptor is attached to, or `nil` when it is not
    /// a terminal (asks the kernel with `TIOCGWINSZ`).
    public static func columns(ofFileDescriptor descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The width to wrap text to: `COLUMNS` when it holds a positive number, else the width
    /// of the terminal on `descriptor` (standard output), else 80.
    public static func detectWidth(environment: [String: String], fileDescriptor descriptor: Int32 = STDOUT_FILENO) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        return columns(ofFileDescriptor: descriptor) ?? 80
    }
}
