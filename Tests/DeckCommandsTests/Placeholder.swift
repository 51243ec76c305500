import Testing
@testable import DeckCommands
