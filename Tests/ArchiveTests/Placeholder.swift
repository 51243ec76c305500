import Testing
@testable import Archive
