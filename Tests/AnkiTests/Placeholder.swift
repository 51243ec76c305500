import Testing
@testable import Anki
