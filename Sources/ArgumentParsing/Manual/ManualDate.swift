#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The date printed at the foot of a manual page (`.Dd April 1, 2026`).
///
/// Pass a fixed date (the release's) when generating pages that are committed, so that
/// regenerating them changes nothing.
public struct ManualDate: Sendable, Hashable {
    /// The year (2026).
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month.
    public var day: Int

    /// Creates a date; `month` is 1 to 12.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Today's date in UTC.
    public static func today() -> ManualDate {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return ManualDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// The date as mdoc wants it: `April 1, 2026`.
    var mdocText: String {
        let name = Self.monthNames.indices.contains(month - 1) ? Self.monthNames[month - 1] : "January"
        return "\(name) \(day), \(year)"
    }
}
