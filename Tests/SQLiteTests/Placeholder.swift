import Testing
@testable import SQLite
