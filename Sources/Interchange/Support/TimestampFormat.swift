import DeckDocument
import Foundation

/// Dates as ISO 8601 UTC text with milliseconds (`2026-01-31T08:05:09.250Z`), the form the
/// JSON export uses. Formatting rounds to the millisecond and parsing gives back exactly
/// that millisecond, so a date read from an export formats to the same text again.
enum TimestampFormat {
    static func string(from date: Date) -> String {
        // Dates reach here within CardValueLimits.dates (importers and the store's readers refuse
        // others); bounded anyway, so that no value can make the conversion or the day arithmetic trap.
        let seconds = date.timeIntervalSince1970
        let bounded = seconds.isNaN ? 0 : min(max(seconds, CardValueLimits.dates.lowerBound), CardValueLimits.dates.upperBound)
        let milliseconds = Int64((bounded * 1000).rounded())
        var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let millisOfDay = milliseconds - days * 86_400_000
        // Civil date from days since 1970 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let hour = millisOfDay / 3_600_000, minute = millisOfDay / 60_000 % 60
        let second = millisOfDay / 1000 % 60, milli = millisOfDay % 1000
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(milli, 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z`; nil when malformed.
    static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var milli: Int64 = 0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count <= 30, let fraction = number(20..<(bytes.count - 1)) else { return nil }
            let digits = bytes.count - 21
            milli = digits >= 3 ? fraction / Int64(pow(10.0, Double(digits - 3))) : fraction * Int64(pow(10.0, Double(3 - digits)))
        } else if bytes.count != 20 {
            return nil
        }
        // Days since 1970 from a civil date.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let milliseconds = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
