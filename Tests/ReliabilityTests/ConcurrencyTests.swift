import DeckDocument
import Foundation
import Persistence
import Testing

/// Several writers on one deck at once: every write lands or is refused with a clear
/// "in use" error, nothing is lost, nothing is corrupt, and readers are never refused.
@Suite(.tags(.reliability))
struct ConcurrencyTests {
    /// What one writer process saw for each of its adds.
    struct Outcome: Sendable {
        var landed: [String] = []
        var refused = 0
        var unexpected: [String] = []
    }

    @Test("2 and 4 processes adding to one deck while 2 readers list it", arguments: [2, 4])
    func processesWriteOneDeck(writers: Int) throws {
        let scratch = try Scratch("concurrency")
        let directory = scratch.url
        #expect(try scratch.run("create", "C.sampledeck").status == 0)
        let addsPerWriter = 8
        let done = Flag()
        // Threads, not tasks: each body blocks on child processes.
        let writerBodies: [@Sendable () -> Outcome] = (0..<writers).map { writer in
            {
                var outcome = Outcome()
                for n in 0..<addsPerWriter {
                    let front = "w\(writer)-\(n)"
                    do {
                        let run = try DeckBinary.run(["add", "C.sampledeck", "--front", front, "--back", "b"], in: directory)
                        if run.status == 0 && !run.signaled {
                            outcome.landed.append(front)
                        } else if run.status == 74 && run.stderr.contains("open for writing by another process") {
                            outcome.refused += 1
                        } else {
                            outcome.unexpected.append("\(front): \(run)")
                        }
                    } catch {
                        outcome.unexpected.append("\(front): \(error)")
                    }
                }
                return outcome
            }
        }
        let readerBodies: [@Sendable () -> Outcome] = (0..<2).map { _ in
            {
                var outcome = Outcome()
                var lastCount = 0
                var reads = 0
                while !done.isSet || reads == 0 {
                    reads += 1
                    do {
                        let count = try DeckState.cards(of: "C.sampledeck", in: directory).count
                        if count < lastCount { outcome.unexpected.append("a reader saw \(count) cards after \(lastCount)") }
                        lastCount = count
                    } catch {
                        outcome.unexpected.append("reader: \(error)")
                    }
                }
                outcome.refused = reads
                return outcome
            }
        }
        let readers = Threads.start(readerBodies)
        let outcomes = Threads.start(writerBodies).wait()
        done.set()
        let readerOutcomes = readers.wait()
        let landed = Set(outcomes.flatMap(\.landed))
        let refused = outcomes.map(\.refused).reduce(0, +)
        #expect(outcomes.flatMap(\.unexpected).isEmpty, "\(outcomes.flatMap(\.unexpected))")
        #expect(readerOutcomes.flatMap(\.unexpected).isEmpty, "\(readerOutcomes.flatMap(\.unexpected).prefix(5))")
        #expect(landed.count + refused == writers * addsPerWriter)
        #expect(!landed.isEmpty)
        let fronts = Set(try DeckState.cards(of: "C.sampledeck", in: directory).values.map(\.front))
        #expect(fronts == landed, "lost: \(landed.subtracting(fronts).sorted()), unexpected: \(fronts.subtracting(landed).sorted())")
        #expect(try DeckState.problems(of: "C.sampledeck", in: directory).isEmpty)
        let reads = readerOutcomes.map(\.refused).reduce(0, +)
        print("concurrency: \(writers) writers, \(landed.count) adds landed, \(refused) refused as in use, \(reads) reads")
    }

    @Test("2 processes running 40 deck add each at once: every add lands (writers wait for the lock)")
    func waitingWritersAllFinish() throws {
        let scratch = try Scratch("concurrency")
        let directory = scratch.url
        #expect(try scratch.run("create", "C.sampledeck").status == 0)
        let bodies: [@Sendable () -> Outcome] = (0..<2).map { writer in
            {
                var outcome = Outcome()
                for n in 0..<40 {
                    let front = "q\(writer)-\(n)"
                    do {
                        // A generous wait: the test machine may be loaded.
                        let run = try DeckBinary.run(["add", "C.sampledeck", "--front", front, "--back", "b", "--wait", "120"], in: directory)
                        if run.status == 0 { outcome.landed.append(front) } else { outcome.unexpected.append("\(front): \(run)") }
                    } catch {
                        outcome.unexpected.append("\(front): \(error)")
                    }
                }
                return outcome
            }
        }
        let outcomes = Threads.start(bodies).wait()
        #expect(outcomes.flatMap(\.unexpected).isEmpty, "\(outcomes.flatMap(\.unexpected).prefix(3))")
        let stored = try DeckState.cards(of: "C.sampledeck", in: directory).values.map(\.front)
        #expect(stored.count == 80 && Set(stored) == Set(outcomes.flatMap(\.landed)))
        #expect(try DeckState.problems(of: "C.sampledeck", in: directory).isEmpty)
    }

    @Test("--no-wait is refused at once while another process writes; readers never wait")
    func noWaitIsRefusedAtOnce() throws {
        let scratch = try Scratch("concurrency")
        let directory = scratch.url
        #expect(try scratch.run("create", "C.sampledeck").status == 0)
        let holder = try DeckDocument.open(at: directory.appendingPathComponent("C.sampledeck"))
        let refused = try DeckBinary.run(["add", "C.sampledeck", "--front", "a", "--back", "b", "--no-wait"], in: directory)
        #expect(refused.status == 74 && refused.stderr.contains("open for writing by another process"), "\(refused)")
        let waited = try DeckBinary.run(["add", "C.sampledeck", "--front", "a", "--back", "b", "--wait", "0.3"], in: directory)
        #expect(waited.status == 74 && waited.stderr.contains("(waited 0.3 s)"), "\(waited)")
        let reader = try DeckBinary.run(["list", "C.sampledeck"], in: directory)
        #expect(reader.status == 0)
        try holder.close()
        #expect(try DeckBinary.run(["add", "C.sampledeck", "--front", "a", "--back", "b", "--no-wait"], in: directory).status == 0)
    }

    @Test("4 writers that retry on \"in use\" get every write in")
    func retryingWritersLoseNothing() throws {
        let scratch = try Scratch("concurrency")
        let directory = scratch.url
        #expect(try scratch.run("create", "C.sampledeck").status == 0)
        let bodies: [@Sendable () -> Outcome] = (0..<4).map { writer in
            {
                var outcome = Outcome()
                for n in 0..<5 {
                    let front = "r\(writer)-\(n)"
                    for _ in 0..<400 {
                        guard let run = try? DeckBinary.run(["add", "C.sampledeck", "--front", front, "--back", "b"], in: directory) else { continue }
                        if run.status == 0 { outcome.landed.append(front); break }
                        outcome.refused += 1
                        if !(run.status == 74 && run.stderr.contains("another process")) { outcome.unexpected.append("\(front): \(run)"); break }
                        usleep(UInt32.random(in: 1_000...20_000))
                    }
                }
                return outcome
            }
        }
        let outcomes = Threads.start(bodies).wait()
        let fronts = outcomes.flatMap(\.landed)
        #expect(outcomes.flatMap(\.unexpected).isEmpty, "\(outcomes.flatMap(\.unexpected))")
        #expect(fronts.count == 20)
        let stored = try DeckState.cards(of: "C.sampledeck", in: directory).values.map(\.front)
        #expect(Set(stored) == Set(fronts) && stored.count == 20)
        #expect(try DeckState.problems(of: "C.sampledeck", in: directory).isEmpty)
    }

    @Test("several contexts of one deck's container save and fetch on different tasks; readers never see half a save")
    func contextsOnSeveralTasks() async throws {
        let scratch = try Scratch("contexts")
        let document = try DeckDocument.create(at: scratch.path("C.sampledeck"), title: "Contexts")
        let container = document.container
        let writers = 4, saves = 10, perSave = 10
        let partial = try await withThrowingTaskGroup(of: [Int].self) { group in
            for worker in 0..<writers {
                group.addTask {
                    let context = ModelContext(container)
                    for save in 0..<saves {
                        for n in 0..<perSave {
                            context.insert(DeckSchemaV2.Tag(name: "t\(worker)-\(save)-\(n)"))
                        }
                        try context.save()
                        await Task.yield()
                    }
                    return []
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    let context = ModelContext(container)
                    var oddCounts: [Int] = []
                    for _ in 0..<50 {
                        let count = try context.fetchCount(FetchDescriptor<DeckSchemaV2.Tag>())
                        if count % perSave != 0 { oddCounts.append(count) }
                        await Task.yield()
                    }
                    return oddCounts
                }
            }
            var partial: [Int] = []
            for try await odd in group { partial += odd }
            return partial
        }
        #expect(partial.isEmpty, "readers saw counts between saves: \(partial.prefix(5))")
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<DeckSchemaV2.Tag>()) == writers * saves * perSave)
        let problems = document.check().filter { $0.severity == .error }
        #expect(problems.isEmpty, "\(problems)")
        try document.close()
        #expect(try DeckBinary.sqliteIntegrity(of: scratch.path("C.sampledeck/Deck.sqlite")) == "ok")
    }
}

/// A flag set once by one task and read by others.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// Bodies running on their own threads (blocking work, such as waiting for child processes,
/// must not occupy the few threads of Swift's cooperative pool).
final class Threads<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: T] = [:]
    private let group = DispatchGroup()
    private let count: Int

    private init(count: Int) { self.count = count }

    static func start(_ bodies: [@Sendable () -> T]) -> Threads<T> {
        let threads = Threads(count: bodies.count)
        for (index, body) in bodies.enumerated() {
            threads.group.enter()
            let thread = Thread {
                let result = body()
                threads.lock.withLock { threads.results[index] = result }
                threads.group.leave()
            }
            thread.start()
        }
        return threads
    }

    /// Waits for every body; results in the order of the bodies.
    func wait() -> [T] {
        group.wait()
        return lock.withLock { (0..<count).compactMap { results[$0] } }
    }
}

/// Autosave checks run on the scheduler's queue; switching autosave off on the context's own
/// thread must stop them without a data race (found by `make tsan` in every `deck` process).
@Suite(.tags(.reliability))
struct AutosaveRaceTests {
    @Test("switching autosave off while a check is scheduled on another queue: no race, no later save")
    func switchingAutosaveOffStopsScheduledChecks() throws {
        let scratch = try Scratch("autosave")
        let document = try DeckDocument.create(at: scratch.path("A.sampledeck"), title: "Autosave")
        let context = ModelContext(document.container)
        context.autosaveScheduler = DispatchAutosaveScheduler(queue: DispatchQueue.global())
        // Checks fall due only after autosave is off again (as in `deck`, where DeckDocument
        // turns the main context's autosave off long before its first check), so the context
        // itself is only ever used on this thread; the checks may look at nothing but their token.
        context.autosaveDelay = .milliseconds(50)
        for _ in 0..<20 {
            context.autosaveEnabled = true
            context.autosaveEnabled = false
        }
        context.insert(DeckSchemaV2.Tag(name: "unsaved"))
        usleep(150_000)
        #expect(context.hasChanges, "a check scheduled before autosave was switched off saved anyway")
        context.rollback()
        try document.close()
    }
}
