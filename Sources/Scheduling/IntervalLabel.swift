/// Interval labels as Anki's answer buttons show them (English).
public enum IntervalLabel {
    /// The label of an interval of `seconds`: `45s`, `10m`, `2.5h`, `3d`, `3.2mo`, `1.1y`; `(end)` for
    /// 0; with a leading `<` below `collapseBelow` seconds (the learn-ahead limit), as Anki does.
    public static func answerButton(seconds: Int, collapseBelow: Int) -> String {
        if seconds == 0 { return "(end)" }
        let text = span(Float(seconds))
        return seconds < collapseBelow ? "<" + text : text
    }

    private static func span(_ seconds: Float) -> String {
        let minute: Float = 60, hour: Float = 3600, day: Float = 86_400
        let year: Float = 365 * day, month: Float = year / 12
        let secs = abs(seconds)
        let (unit, suffix, wholeOnly): (Float, String, Bool) =
            secs < minute ? (1, "s", true) : secs < hour ? (minute, "m", true) : secs < day ? (hour, "h", false)
            : secs < month ? (day, "d", true) : secs < year ? (month, "mo", false) : (year, "y", false)
        let amount = seconds / unit
        let rounded = wholeOnly ? amount.rounded() : (amount * 10).rounded() / 10
        return format(rounded) + suffix
    }

    private static func format(_ value: Float) -> String {
        if value == value.rounded() { return String(Int(value)) }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
