import Testing
@testable import Interchange
