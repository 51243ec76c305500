import Foundation

/// Builds today's study queue of a deck and its subdecks as Anki's v3 scheduler does, from
/// candidates streamed in the order a store can supply them in one query.
///
/// Anki's rules: intraday learning cards due before the next day starts are all taken, whatever
/// the limits; then interday learning and reviews due today, up to each deck's review limit
/// (a deck's limit also caps its subdecks, and every card taken counts against its deck and all
/// its ancestors up to the deck being studied); then new cards, up to the new limits, which the
/// review limit also caps unless `newCardsIgnoreReviewLimit`. A card whose note already had a
/// card gathered is left out when the preset of that earlier card's deck buries siblings of its
/// kind. New cards are then sorted by the root deck's preset; reviews, interday learning and
/// new cards are merged as its mix options say.
///
/// **What the caller queries.** One pass over the cards of the root deck and its subdecks:
///
/// ```sql
/// SELECT id, nid, did, queue, due, reps, ord FROM cards
/// WHERE did IN (<the tree's ids>) AND (
///       (queue IN (1, 4) AND due <= :nextDayAt)     -- intraday learning
///    OR (queue IN (2, 3) AND due <= :today)         -- interday learning and reviews
///    OR  queue = 0)                                 -- new
/// ORDER BY CASE queue WHEN 1 THEN 0 WHEN 4 THEN 0 WHEN 3 THEN 1 WHEN 2 THEN 2 ELSE 3 END,
///          CASE WHEN queue = 0 THEN <the deck's rank in name order> ELSE 0 END,
///          due, ord, id
/// ```
///
/// that is, in phases (intraday learning, interday learning, reviews, new), due cards by due day
/// within a phase, new cards deck by deck and by position (then template) within a deck. Decks
/// rank by their full names compared with the level separator as U+001F, as Anki stores them
/// (a deck's subdecks come right after it). Feed each row to ``add(_:)`` as it is stepped — nothing has to be
/// materialized — and stop when it returns `false`. An index on `(did, queue, due)` serves the
/// query. Suspended and buried cards are not candidates.
public struct StudyQueueBuilder {
    private struct Limits {
        var review: Int
        var new: Int
        var capNewToReview: Bool

        mutating func cap(to other: Limits) {
            review = min(review, other.review)
            new = min(new, other.new)
        }
    }

    private struct Node {
        var limits: Limits
        var parent: Int?
        var children: [Int]
        var bury: BuryMode
    }

    struct BuryMode: Hashable {
        var new = false, reviews = false, interdayLearning = false
        var any: Bool { new || reviews || interdayLearning }
        mutating func formUnion(_ other: BuryMode) {
            new = new || other.new
            reviews = reviews || other.reviews
            interdayLearning = interdayLearning || other.interdayLearning
        }
    }

    private var nodes: [Node] = []
    private var nodeByDeck: [Int64: Int] = [:]
    private var lastDeck: Int64 = .min
    private var lastNode = 0
    private let anyBurying: Bool
    private var seenNotes: [Int64: BuryMode] = [:]
    private var phase = 0
    private let today: SchedulingTiming.Today
    private let now: Int64
    private let learnAheadSeconds: Int
    private let rootPreset: SchedulingPreset

    private var intraday: [(entry: StudyQueue.Entry, seen: Bool)] = []
    private var interday: [StudyQueue.Entry] = []
    private var reviews: [StudyQueue.Entry] = []
    private var newCards: [(entry: StudyQueue.Entry, template: Int)] = []

    /// A builder for the tree under `root`.
    ///
    /// - Parameters:
    ///   - root: the deck being studied.
    ///   - decks: that deck and its subdecks, in any order (decks not under `root` are ignored,
    ///     and so are their cards).
    ///   - timing: the day boundary; `time`: when the queue is built.
    ///   - newCardsIgnoreReviewLimit: Anki's collection option of that name (off).
    /// - Throws: ``SchedulingError/cannotAnswer(_:)`` when `root` is not among `decks`.
    public init(root: Int64, decks: [StudyDeck], timing: SchedulingTiming, at time: Date,
                learnAheadSeconds: Int = 1200, newCardsIgnoreReviewLimit: Bool = false) throws {
        now = Int64(time.timeIntervalSince1970.rounded(.down))
        today = timing.today(at: now)
        self.learnAheadSeconds = learnAheadSeconds
        guard let rootDeck = decks.first(where: { $0.id == root }) else {
            throw SchedulingError.cannotAnswer("deck \(root) is not in the deck tree")
        }
        rootPreset = rootDeck.preset
        func limits(_ deck: StudyDeck) -> Limits {
            var review = (deck.reviewLimit ?? deck.preset.reviewsPerDay) - deck.reviewsStudiedToday
            var new = (deck.newLimit ?? deck.preset.newCardsPerDay) - deck.newStudiedToday
            if !newCardsIgnoreReviewLimit {
                review -= deck.newStudiedToday
                new = min(new, review)
            }
            return Limits(review: max(0, review), new: max(0, new), capNewToReview: !newCardsIgnoreReviewLimit)
        }
        func bury(_ preset: SchedulingPreset) -> BuryMode {
            BuryMode(new: preset.buryNew, reviews: preset.buryReviews, interdayLearning: preset.buryInterdayLearning)
        }
        var tree = [Node(limits: limits(rootDeck), parent: nil, children: [], bury: bury(rootDeck.preset))]
        var map: [Int64: Int] = [root: 0]
        // Parents before children: a deck joins once its parent is in the tree.
        var pending = decks.filter { $0.id != root }
        var progressed = true
        while !pending.isEmpty && progressed {
            progressed = false
            var rest: [StudyDeck] = []
            for deck in pending {
                guard let parentID = deck.parentID, let parent = map[parentID] else { rest.append(deck); continue }
                var node = Node(limits: limits(deck), parent: parent, children: [], bury: bury(deck.preset))
                node.limits.cap(to: tree[parent].limits)
                tree.append(node)
                tree[parent].children.append(tree.count - 1)
                map[deck.id] = tree.count - 1
                progressed = true
            }
            pending = rest
        }
        nodes = tree
        nodeByDeck = map
        anyBurying = nodes.contains { $0.bury.any }
    }

    /// Takes one candidate; returns `false` when no later candidate can be taken (the new-card
    /// limit of the root is reached in the new phase), so the caller can stop stepping its query.
    ///
    /// Candidates out of phase order (a review after a new card, say) are ignored: the query
    /// must order them as ``StudyQueueBuilder`` describes.
    @discardableResult
    public mutating func add(_ card: StudyCandidate) -> Bool {
        let cardPhase: Int
        switch card.queue {
        case .learning, .preview: cardPhase = 0
        case .dayLearning: cardPhase = 1
        case .review: cardPhase = 2
        case .new: cardPhase = 3
        case .suspended, .siblingBuried, .manuallyBuried: return true
        }
        guard cardPhase >= phase else { return true }
        phase = cardPhase
        guard let node = node(for: card.deckID) else { return true }
        switch cardPhase {
        case 0:
            guard card.due <= today.nextDayAt else { return true }
            _ = registerNote(card, node: node)
            intraday.append((StudyQueue.Entry(cardID: card.id, noteID: card.noteID, kind: .learning, due: card.due), card.reps > 0))
        case 1, 2:
            guard card.due <= today.day else { return true }
            if nodes[0].limits.review == 0 || nodes[node].limits.review == 0 { return true }
            if let previous = registerNote(card, node: node), cardPhase == 1 ? previous.interdayLearning : previous.reviews {
                return true
            }
            if cardPhase == 1 {
                interday.append(StudyQueue.Entry(cardID: card.id, noteID: card.noteID, kind: .interdayLearning))
            } else {
                reviews.append(StudyQueue.Entry(cardID: card.id, noteID: card.noteID, kind: .review))
            }
            decrement(node, review: true)
        default:
            if nodes[0].limits.new == 0 { return false }
            if nodes[node].limits.new == 0 { return true }
            if let previous = registerNote(card, node: node), previous.new { return true }
            newCards.append((StudyQueue.Entry(cardID: card.id, noteID: card.noteID, kind: .new), card.templateIndex))
            decrement(node, review: false)
            return nodes[0].limits.new > 0
        }
        return true
    }

    /// The phases of the candidate query, in the order they are fed.
    public enum Phase: Sendable, Hashable {
        case intradayLearning, interdayLearning, review, new
    }

    /// Whether a later candidate of `phase` can still be taken: intraday learning always; interday
    /// learning and reviews while the root deck's review limit is not reached; new cards while
    /// its new-card limit is not. When it is `false` the caller can end that phase's query.
    public func accepts(_ phase: Phase) -> Bool {
        guard Self.order(of: phase) >= self.phase else { return false }
        switch phase {
        case .intradayLearning: return true
        case .interdayLearning, .review: return nodes[0].limits.review > 0
        case .new: return nodes[0].limits.new > 0
        }
    }

    /// Whether a later candidate of `phase` in the deck `deckID` can still be taken (its own
    /// limit, capped by its ancestors', is not reached; limits only go down). When it is
    /// `false` the caller can leave that deck's rows of the phase unread.
    public func accepts(_ phase: Phase, inDeck deckID: Int64) -> Bool {
        guard accepts(phase) else { return false }
        guard let node = nodeByDeck[deckID] else { return true }
        switch phase {
        case .intradayLearning: return true
        case .interdayLearning, .review: return nodes[node].limits.review > 0
        case .new: return nodes[node].limits.new > 0
        }
    }

    private static func order(of phase: Phase) -> Int {
        switch phase {
        case .intradayLearning: 0
        case .interdayLearning: 1
        case .review: 2
        case .new: 3
        }
    }

    /// The queue.
    public func build() -> StudyQueue {
        let learning = intraday.sorted { a, b in
            (!a.seen ? 1 : 0, a.entry.due) < (!b.seen ? 1 : 0, b.entry.due)
        }.map(\.entry)
        let salt = today.day
        var sortedNew = newCards
        switch rootPreset.newCardOrder {
        case .noSort: break
        case .template: sortedNew = Self.stableSorted(sortedNew) { $0.template < $1.template }
        case .templateThenRandom:
            sortedNew.sort { ($0.template, Self.fnv($0.entry.cardID, salt)) < ($1.template, Self.fnv($1.entry.cardID, salt)) }
        case .randomNoteThenTemplate:
            sortedNew.sort { (Self.fnv($0.entry.noteID, salt), $0.template) < (Self.fnv($1.entry.noteID, salt), $1.template) }
        case .randomCard:
            sortedNew.sort { Self.fnv($0.entry.cardID, salt) < Self.fnv($1.entry.cardID, salt) }
        }
        let withInterday = Self.merge(reviews, interday, rootPreset.interdayLearningMix)
        let main = Self.merge(withInterday, sortedNew.map(\.entry), rootPreset.newMix)
        return StudyQueue(learning: learning, main: main, builtAt: now, learnAheadSeconds: learnAheadSeconds)
    }

    // MARK: Inside

    private mutating func node(for deckID: Int64) -> Int? {
        if deckID == lastDeck { return lastNode }
        guard let node = nodeByDeck[deckID] else { return nil }
        lastDeck = deckID
        lastNode = node
        return node
    }

    /// Records the card's note; returns the burying of the note's earlier cards, if any.
    private mutating func registerNote(_ card: StudyCandidate, node: Int) -> BuryMode? {
        guard anyBurying else { return nil }
        let mode = nodes[node].bury
        if var previous = seenNotes[card.noteID] {
            let before = previous
            previous.formUnion(mode)
            seenNotes[card.noteID] = previous
            return before
        }
        seenNotes[card.noteID] = mode
        return nil
    }

    private mutating func decrement(_ start: Int, review: Bool) {
        var index: Int? = start
        while let current = index {
            let before = nodes[current].limits
            if review {
                nodes[current].limits.review = max(0, before.review - 1)
                if before.capNewToReview { nodes[current].limits.new = min(nodes[current].limits.new, nodes[current].limits.review) }
            } else {
                nodes[current].limits.new = max(0, before.new - 1)
            }
            let after = nodes[current].limits
            if (before.review > 0 && after.review == 0) || (before.new > 0 && after.new == 0) {
                capDescendants(of: current, to: after)
            }
            index = nodes[current].parent
        }
    }

    private mutating func capDescendants(of index: Int, to limits: Limits) {
        nodes[index].limits.cap(to: limits)
        for child in nodes[index].children { capDescendants(of: child, to: limits) }
    }

    /// Spreads `two` evenly through `one` (Anki's `Intersperser`), or chains them.
    static func merge(_ one: [StudyQueue.Entry], _ two: [StudyQueue.Entry], _ mix: SchedulingPreset.Mix) -> [StudyQueue.Entry] {
        switch mix {
        case .afterReviews: return one + two
        case .beforeReviews: return two + one
        case .mixWithReviews:
            guard !one.isEmpty, !two.isEmpty else { return one + two }
            let ratio = Float(one.count + 1) / Float(two.count + 1)
            var result: [StudyQueue.Entry] = []
            result.reserveCapacity(one.count + two.count)
            var i = 0, j = 0
            while i < one.count || j < two.count {
                if i < one.count && j < two.count {
                    if Float(j + 1) * ratio < Float(i + 1) { result.append(two[j]); j += 1 } else { result.append(one[i]); i += 1 }
                } else if i < one.count {
                    result.append(one[i]); i += 1
                } else {
                    result.append(two[j]); j += 1
                }
            }
            return result
        }
    }

    private static func stableSorted<T>(_ items: [T], by less: (T, T) -> Bool) -> [T] {
        items.enumerated().sorted { a, b in less(a.element, b.element) || (!less(b.element, a.element) && a.offset < b.offset) }.map(\.element)
    }

    /// FNV-1a over the two values' little-endian bytes (the hasher Anki sorts random orders with).
    static func fnv(_ value: Int64, _ salt: Int64) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for word in [value, salt] {
            var bits = UInt64(bitPattern: word)
            for _ in 0..<8 {
                hash ^= bits & 0xFF
                hash = hash &* 0x100_0000_01B3
                bits >>= 8
            }
        }
        return hash
    }
}

/// Which siblings to bury after a card is answered (Anki's `bury_siblings`).
public enum SiblingBurying {
    /// The queues whose cards of the same note are buried (set to ``CardQueue/siblingBuried``
    /// until the next day) after answering a card that was in `queue`, under `preset`. Anki
    /// buries only kinds gathered after the answered card's own (a new card's answer does not
    /// bury reviews already in the queue).
    public static func queuesToBury(afterAnswering queue: CardQueue, preset: SchedulingPreset) -> Set<CardQueue> {
        let order: Int
        switch queue {
        case .learning, .preview: order = 0
        case .dayLearning: order = 1
        case .review: order = 2
        case .new: order = 3
        default: return []
        }
        var queues = Set<CardQueue>()
        if preset.buryNew { queues.insert(.new) }
        if preset.buryReviews && order <= 2 { queues.insert(.review) }
        if preset.buryInterdayLearning && order <= 1 { queues.insert(.dayLearning) }
        return queues
    }
}
