import Foundation

/// Runs an autosave check later. Contexts are not `Sendable`: a scheduler must call
/// `action` on the thread (or actor) the context is used on.
public protocol AutosaveScheduler: AnyObject {
    /// Calls `action` once, after `delay`.
    func schedule(after delay: Duration, _ action: @escaping () -> Void)
}

/// The default scheduler: a dispatch queue (the main queue for the main context).
///
/// Its checks run only while the queue is serviced (an app's main loop, `dispatchMain()`);
/// a command-line tool that never runs the main queue still gets its changes saved by
/// ``ModelContainer/close()``.
public final class DispatchAutosaveScheduler: AutosaveScheduler, @unchecked Sendable {
    let queue: DispatchQueue
    public init(queue: DispatchQueue = .main) { self.queue = queue }

    public func schedule(after delay: Duration, _ action: @escaping () -> Void) {
        let box = UncheckedAction(action)
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { box.action() }
    }
}

/// A scheduler driven by hand, for tests: nothing runs until ``advance(by:)``.
public final class ManualAutosaveScheduler: AutosaveScheduler {
    /// The scheduler's clock, from zero.
    public private(set) var now: Duration = .zero
    private var pending: [(due: Duration, order: Int, action: () -> Void)] = []
    private var order = 0

    public init() {}

    public func schedule(after delay: Duration, _ action: @escaping () -> Void) {
        order += 1
        pending.append((now + delay, order, action))
    }

    /// Moves the clock forward, running every action that falls due, in order.
    public func advance(by duration: Duration) {
        let end = now + duration
        while let next = pending.enumerated().filter({ $0.element.due <= end }).min(by: { ($0.element.due, $0.element.order) < ($1.element.due, $1.element.order) }) {
            pending.remove(at: next.offset)
            now = max(now, next.element.due)
            next.element.action()
        }
        now = end
    }
}

/// A cancellation flag shared between a context and the checks it scheduled.
final class AutosaveToken: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    var isCancelled: Bool { lock.withLock { cancelled } }
    func cancel() { lock.withLock { cancelled = true } }
}

private struct UncheckedAction: @unchecked Sendable {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
}

/// The autosave bookkeeping of one context.
struct AutosaveState {
    /// Counts inserts and deletes, so a check can tell whether a burst is still going.
    var generation: UInt64 = 0
    /// The generation seen by the last check.
    var checkedGeneration: UInt64 = 0
    /// The generation at the last failed autosave: not retried until something changes.
    var failedGeneration: UInt64?
    var scheduler: AutosaveScheduler?
    var delay: Duration = .seconds(1)
    /// Bumped when autosave is switched or re-configured, so stale checks stop.
    var epoch = 0
    /// Cancelled with every bump of `epoch`: a check that was already scheduled reads this
    /// (under a lock) on the scheduler's thread instead of the context's own state.
    var token = AutosaveToken()
    var errorHandler: ((any Error) -> Void)?
    var lastError: (any Error)?
    var errorContinuation: AsyncStream<any Error>.Continuation?
}

extension ModelContext {
    /// What runs autosave checks: by default a ``DispatchAutosaveScheduler`` on the main queue.
    /// Tests inject a ``ManualAutosaveScheduler`` to control time.
    public var autosaveScheduler: AutosaveScheduler {
        get {
            if let scheduler = autosaveState.scheduler { return scheduler }
            let scheduler = DispatchAutosaveScheduler()
            autosaveState.scheduler = scheduler
            return scheduler
        }
        set {
            autosaveState.scheduler = newValue
            autosaveSettingChanged()
        }
    }

    /// How long the context waits for a burst of changes to end before saving (default 1 s).
    ///
    /// A check runs every `autosaveDelay`; it saves when the context has changes and no
    /// model was inserted or deleted since the previous check. Attribute changes are found
    /// by the check itself (they are plain stored properties), so they are saved by the
    /// first check after them.
    public var autosaveDelay: Duration {
        get { autosaveState.delay }
        set {
            autosaveState.delay = max(newValue, .milliseconds(1))
            autosaveSettingChanged()
        }
    }

    /// Called with every error of an autosave (on the scheduler's thread). After a failure
    /// the context keeps its changes and retries after the next insert or delete, or saves
    /// at an explicit ``save()``.
    public var autosaveErrorHandler: ((any Error) -> Void)? {
        get { autosaveState.errorHandler }
        set { autosaveState.errorHandler = newValue }
    }

    /// The error of the last autosave, if it failed (cleared by a successful one).
    public var lastAutosaveError: (any Error)? { autosaveState.lastError }

    /// The errors of autosaves, as a stream (a new stream replaces the previous one).
    public func autosaveErrors() -> AsyncStream<any Error> {
        autosaveState.errorContinuation?.finish()
        let (stream, continuation) = AsyncStream<any Error>.makeStream(bufferingPolicy: .bufferingNewest(16))
        autosaveState.errorContinuation = continuation
        return stream
    }

    func autosaveSettingChanged() {
        autosaveState.epoch += 1
        autosaveState.token.cancel()
        autosaveState.token = AutosaveToken()
        guard autosaveEnabled else { return }
        autosaveState.checkedGeneration = autosaveState.generation
        scheduleAutosaveCheck(token: autosaveState.token)
    }

    private func scheduleAutosaveCheck(token: AutosaveToken) {
        autosaveScheduler.schedule(after: autosaveState.delay) { [weak self] in
            // Switching autosave off (or re-configuring it) cancels the token first, so a
            // context used off the scheduler's thread is not read here once it turned autosave off.
            guard !token.isCancelled, let self else { return }
            self.autosaveCheck()
            self.scheduleAutosaveCheck(token: token)
        }
    }

    /// One check: saves when the burst is over and there is something to save.
    func autosaveCheck() {
        let generation = autosaveState.generation
        defer { autosaveState.checkedGeneration = generation }
        guard generation == autosaveState.checkedGeneration else { return }  // still changing
        guard autosaveState.failedGeneration != generation, !container.isClosed, hasChanges else { return }
        do {
            try save()
            autosaveState.failedGeneration = nil
            autosaveState.lastError = nil
        } catch {
            autosaveState.failedGeneration = generation
            autosaveState.lastError = error
            autosaveState.errorHandler?(error)
            autosaveState.errorContinuation?.yield(error)
        }
    }
}
