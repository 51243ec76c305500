import Foundation

/// A date (`2026-01-01`) or a date and time (`2026-01-01T10:00:00Z`) written in a filter,
/// kept as written so a translator knows whether it means a whole day or an instant.
///
/// Dates and date-times are ISO 8601: `YYYY-MM-DD`, then optionally `T`, `HH:MM`, optional
/// `:SS` and fraction (up to 9 digits), and an optional zone, `Z` or `±HH:MM`. A date-time
/// without a zone is read as UTC.
public struct FilterDate: Hashable, Sendable, CustomStringConvertible {
    /// The time of day of a date-time.
    public struct Time: Hashable, Sendable {
        /// 0–23.
        public var hour: Int
        /// 0–59.
        public var minute: Int
        /// 0–59.
        public var second: Int
        /// 0–999,999,999.
        public var nanosecond: Int
        /// The offset from UTC in seconds (`Z` is 0), or `nil` when no zone was written.
        public var utcOffset: Int?

        /// Creates a time of day.
        public init(hour: Int, minute: Int, second: Int = 0, nanosecond: Int = 0, utcOffset: Int? = nil) {
            self.hour = hour
            self.minute = minute
            self.second = second
            self.nanosecond = nanosecond
            self.utcOffset = utcOffset
        }
    }

    /// The year, 0–9999.
    public var year: Int
    /// The month, 1–12.
    public var month: Int
    /// The day of the month, 1–31.
    public var day: Int
    /// The time, for a date-time; `nil` for a date, which stands for the whole day.
    public var time: Time?

    /// Creates a date or date-time; ``parse(_:)`` checks that it exists, this does not.
    public init(year: Int, month: Int, day: Int, time: Time? = nil) {
        self.year = year
        self.month = month
        self.day = day
        self.time = time
    }

    /// Whether this is a date without a time (a whole day).
    public var isWholeDay: Bool { time == nil }

    /// The instant: midnight UTC for a date, the written time (UTC unless a zone is given)
    /// for a date-time.
    public var date: Date {
        var seconds = Double(Self.daysSinceEpoch(year: year, month: month, day: day) * 86_400)
        if let time {
            seconds += Double(time.hour * 3_600 + time.minute * 60 + time.second - (time.utcOffset ?? 0))
            seconds += Double(time.nanosecond) / 1e9
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// For a date, the next day's midnight UTC (the end of the day, exclusive); for a
    /// date-time, the same as ``date``.
    public var endOfDay: Date {
        time == nil ? date.addingTimeInterval(86_400) : date
    }

    /// Canonical text: `2026-01-01`, `2026-01-01T10:00:00Z`, `2026-01-01T10:00:00.5+02:00`.
    public var description: String {
        var text = Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2)
        guard let time else { return text }
        text += "T" + Self.pad(time.hour, 2) + ":" + Self.pad(time.minute, 2) + ":" + Self.pad(time.second, 2)
        if time.nanosecond > 0 {
            var fraction = Self.pad(time.nanosecond, 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        if let offset = time.utcOffset {
            if offset == 0 {
                text += "Z"
            } else {
                let minutes = abs(offset) / 60
                text += (offset < 0 ? "-" : "+") + Self.pad(minutes / 60, 2) + ":" + Self.pad(minutes % 60, 2)
            }
        }
        return text
    }

    /// Parses an ISO 8601 date or date-time, or returns `nil` when `text` is not one or
    /// names a day or time that does not exist (`2026-02-30`, `25:00`).
    public static func parse(_ text: String) -> FilterDate? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
              let day = scanner.digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var value = FilterDate(year: year, month: month, day: day)
        if scanner.atEnd { return value }
        guard scanner.take("T") || scanner.take("t"), let hour = scanner.digits(2), scanner.take(":"),
              let minute = scanner.digits(2), hour < 24, minute < 60 else { return nil }
        var time = Time(hour: hour, minute: minute)
        if scanner.take(":") {
            guard let second = scanner.digits(2), second < 60 else { return nil }
            time.second = second
            if scanner.take(".") {
                let start = scanner.index
                var nanosecond = 0
                while let digit = scanner.digit() { nanosecond = nanosecond * 10 + digit }
                let count = scanner.index - start
                guard count >= 1, count <= 9 else { return nil }
                for _ in count..<9 { nanosecond *= 10 }
                time.nanosecond = nanosecond
            }
        }
        if scanner.take("Z") || scanner.take("z") {
            time.utcOffset = 0
        } else if !scanner.atEnd {
            let sign: Int
            if scanner.take("+") { sign = 1 } else if scanner.take("-") { sign = -1 } else { return nil }
            guard let hours = scanner.digits(2), scanner.take(":"), let minutes = scanner.digits(2),
                  hours <= 14, minutes < 60 else { return nil }
            time.utcOffset = sign * (hours * 3_600 + minutes * 60)
        }
        guard scanner.atEnd else { return nil }
        value.time = time
        return value
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, UTC)

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 (Howard Hinnant's days-from-civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// A cursor over ASCII bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
            index += 1
            return Int(bytes[index - 1] - 0x30)
        }

        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }
    }
}
