/// The `deck` tool: parses the command line and runs one subcommand.
public enum DeckTool {
    /// Runs the tool with the process arguments and exits with the command's status.
    public static func main() async {}
}
