import Testing
@testable import DeckDocument
