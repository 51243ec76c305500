import Testing
@testable import ArgumentParsing
