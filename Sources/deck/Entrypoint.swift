import DeckCommands

@main
struct Entrypoint {
    static func main() async {
        await DeckTool.runAsProcess()
    }
}
