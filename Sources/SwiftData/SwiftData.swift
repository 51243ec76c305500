// `import SwiftData` on Linux: SampleDeck's persistence layer under SwiftData's module
// name, so a model file written for Apple's SwiftData compiles unchanged and a server can
// share it with an app. What still differs is listed in docs/PERSISTENCE.md, "Porting from
// SwiftData".
@_exported import Foundation
@_exported import Observation
@_exported import Persistence
@_exported import PersistenceMacros
