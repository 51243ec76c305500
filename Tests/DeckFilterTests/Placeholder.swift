import Testing
@testable import DeckFilter
