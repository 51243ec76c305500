/// A command line that cannot be parsed, with the command it was meant for (so the error
/// can show that command's usage).
struct ParserError: Error {
    enum Reason: Error, Equatable {
        case unknownOption(String, suggestion: String?)
        case unknownSubcommand(String, suggestion: String?)
        /// `label` is the option as typed with its value name (`--title <text>`).
        case missingValue(label: String, spelling: String, nextToken: String?)
        case missingArgument(label: String)
        case missingOption(label: String)
        case invalidValue(String, label: String, allowedValues: [String])
        case unexpectedArgument(String)
        case flagWithValue(String)
        case validation(String)
        /// The command's declaration is wrong (a programming error, not the user's).
        case invalidDefinition(String)

        var message: String {
            switch self {
            case .unknownOption(let option, let suggestion):
                "unknown option '\(option)'" + Self.didYouMean(suggestion)
            case .unknownSubcommand(let name, let suggestion):
                "unknown subcommand '\(name)'" + Self.didYouMean(suggestion)
            case .missingValue(let label, let spelling, let nextToken):
                if let nextToken, nextToken.hasPrefix("-"), spelling.hasPrefix("--") {
                    "missing value for '\(label)' (for a value that starts with '-', write '\(spelling)=\(nextToken)')"
                } else {
                    "missing value for '\(label)'"
                }
            case .missingArgument(let label):
                "missing expected argument '\(label)'"
            case .missingOption(let label):
                "missing expected option '\(label)'"
            case .invalidValue(let value, let label, let allowedValues):
                allowedValues.isEmpty
                    ? "the value '\(value)' is invalid for '\(label)'"
                    : "the value '\(value)' is invalid for '\(label)'; expected one of: \(allowedValues.joined(separator: ", "))"
            case .unexpectedArgument(let argument):
                "unexpected argument '\(argument)'"
            case .flagWithValue(let flag):
                "the flag '\(flag)' does not take a value"
            case .validation(let message):
                message
            case .invalidDefinition(let message):
                "invalid command definition: \(message)"
            }
        }

        var exitCode: ExitCode {
            if case .invalidDefinition = self { .failure } else { .usage }
        }

        private static func didYouMean(_ suggestion: String?) -> String {
            suggestion.map { "; did you mean '\($0)'?" } ?? ""
        }
    }

    var reason: Reason
    var path: CommandPath
}
