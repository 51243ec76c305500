import ArgumentParsing
import Foundation

/// Small helpers to write JSON by hand with a stable key order.
enum JSONText {
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            // C0 must be escaped in JSON; DEL, C1, separators and bidirectional controls
            // are, too, so JSON shown on a terminal cannot change what it displays.
            case let s where s.value < 0x20 || s.controlEscape != nil: result += String(format: "\\u%04x", s.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// ISO 8601 in UTC with milliseconds (`2026-01-01T04:00:00.000Z`), the one date form of every command's JSON.
    static func date(_ date: Date) -> String {
        dateStyle.format(date)
    }

    /// Made once: a style's calendar costs more to build than a date costs to format.
    private static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
