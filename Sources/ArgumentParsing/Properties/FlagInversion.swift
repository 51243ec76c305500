/// How a Boolean flag is switched off again.
///
/// ```swift
/// @Flag(inversion: .prefixedNo, help: "Show a progress bar on a terminal.")
/// var progress = true        // --progress, --no-progress
/// ```
public enum FlagInversion: Sendable, Hashable {
    /// `--name` and `--no-name`.
    case prefixedNo
    /// `--enable-name` and `--disable-name`.
    case prefixedEnableDisable

    func enabledName(of name: String) -> String {
        switch self {
        case .prefixedNo: name
        case .prefixedEnableDisable: "enable-\(name)"
        }
    }

    func invertedName(of name: String) -> String {
        switch self {
        case .prefixedNo: "no-\(name)"
        case .prefixedEnableDisable: "disable-\(name)"
        }
    }
}
