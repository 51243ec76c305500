import Foundation

/// The day boundary: which scheduler day a moment falls in, and when the next day starts.
///
/// Days are counted as Anki counts them: day 0 is the day the collection was created, and a day
/// starts at the rollover hour ("next day starts at", 4 a.m. by default) in the collection's
/// time zone, given as a fixed offset from UTC. Review and interday-learning `due` values are
/// such day numbers.
public struct SchedulingTiming: Sendable, Hashable, Codable {
    /// The collection's creation time, Unix seconds (Anki's `col.crt`).
    public var creation: Int64
    /// The local offset from UTC in seconds (east positive: +3600 for UTC+1).
    public var utcOffset: Int
    /// The hour (0–23) at which a new day starts.
    public var rolloverHour: Int

    /// A day boundary.
    public init(creation: Int64, utcOffset: Int = 0, rolloverHour: Int = 4) {
        self.creation = creation
        self.utcOffset = utcOffset
        self.rolloverHour = ((rolloverHour % 24) + 24) % 24
    }

    /// This machine's offset from UTC now, in seconds east: the C library's reading of `TZ`
    /// and /etc/localtime (`localtime_r`), the same zone `TimeZone.current` names, without
    /// loading ICU's zone data, which costs a short command such as `deck review` ~0.4 ms.
    public static func localUTCOffset(at moment: time_t = time(nil)) -> Int {
        var seconds = moment, parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return parts.tm_gmtoff
    }

    /// Where a moment falls: the day number and the start of the next day.
    public struct Today: Sendable, Hashable {
        /// Days since the collection's creation day (Anki's `sched.today`).
        public var day: Int64
        /// When the next day starts, Unix seconds (Anki's `sched.day_cutoff`).
        public var nextDayAt: Int64
    }

    /// The day of `now` (Unix seconds) and when the next day starts.
    public func today(at now: Int64) -> Today {
        let local = now + Int64(utcOffset)
        let secondsIntoDay = Self.floorMod(local, 86_400)
        let midnight = now - secondsIntoDay
        let rolloverToday = midnight + Int64(rolloverHour) * 3600
        let passed = rolloverToday <= now
        let nextDayAt = passed ? rolloverToday + 86_400 : rolloverToday
        let createdLocalDay = Self.floorDiv(creation + Int64(utcOffset), 86_400)
        let nowLocalDay = Self.floorDiv(local, 86_400)
        let days = nowLocalDay - createdLocalDay - (passed ? 0 : 1)
        return Today(day: max(0, days), nextDayAt: nextDayAt)
    }

    /// The day of `date`.
    public func today(at date: Date) -> Today { today(at: Int64(date.timeIntervalSince1970.rounded(.down))) }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }
}
