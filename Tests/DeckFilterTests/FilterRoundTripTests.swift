import Foundation
import Testing
@testable import DeckFilter

/// SplitMix64: a small seeded generator, so random tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct FilterRoundTripTests {
    static let fields = ["front", "back", "text", "tag", "kind", "created", "modified", "due", "interval",
                         "ease", "reps", "lapses", "id", "deck", "_custom", "fields.Extra", "été"]
    static let stringPieces = ["chat", "\"", "\\", " ", "and", "or", "not", "(", ")", ",", "=", "être", "🇫🇷",
                               "\n", "\t", "'", "#", "2026-01-01", "42", "true", ""]

    static func randomValue(_ g: inout SeededGenerator) -> FilterValue {
        switch Int.random(in: 0..<6, using: &g) {
        case 0:
            return .string((0..<Int.random(in: 0...4, using: &g)).map { _ in stringPieces.randomElement(using: &g) ?? "" }.joined())
        case 1:
            return .integer([0, 1, -1, Int.max, Int.min, Int.random(in: -100_000...100_000, using: &g)].randomElement(using: &g) ?? 0)
        case 2:
            let magnitude = Double.random(in: -1e6...1e6, using: &g) * pow(10, Double(Int.random(in: -30...30, using: &g)))
            return .double(magnitude)
        case 3:
            var date = FilterDate(year: Int.random(in: 0...9999, using: &g), month: Int.random(in: 1...12, using: &g),
                                  day: Int.random(in: 1...28, using: &g))
            if Bool.random(using: &g) {
                let offset: Int? = [nil, 0, 3_600, -19_800, 50_400].randomElement(using: &g) ?? nil
                date.time = .init(hour: Int.random(in: 0...23, using: &g), minute: Int.random(in: 0...59, using: &g),
                                  second: Int.random(in: 0...59, using: &g),
                                  nanosecond: [0, 500_000_000, 123_456_789, 1].randomElement(using: &g) ?? 0, utcOffset: offset)
            }
            return .date(date)
        default:
            return .bool(Bool.random(using: &g))
        }
    }

    static func randomExpression(_ g: inout SeededGenerator, depth: Int) -> FilterExpression {
        let field = fields.randomElement(using: &g) ?? "front"
        let choice = depth == 0 ? Int.random(in: 0...1, using: &g) : Int.random(in: 0...4, using: &g)
        switch choice {
        case 0:
            return .comparison(field: field, op: FilterOperator.allCases.randomElement(using: &g) ?? .equal, value: randomValue(&g))
        case 1:
            return .in(field: field, values: (0..<Int.random(in: 1...4, using: &g)).map { _ in randomValue(&g) })
        case 2:
            return .not(randomExpression(&g, depth: depth - 1))
        case 3:
            return .and(randomExpression(&g, depth: depth - 1), randomExpression(&g, depth: depth - 1))
        default:
            return .or(randomExpression(&g, depth: depth - 1), randomExpression(&g, depth: depth - 1))
        }
    }

    @Test func canonicalTextParsesBackToTheSameExpression() throws {
        var g = SeededGenerator(seed: 2026)
        for _ in 0..<2_000 {
            let expression = Self.randomExpression(&g, depth: Int.random(in: 0...5, using: &g))
            let text = expression.description
            let parsed = try FilterParser.parse(text)
            #expect(parsed == expression, "\(text)")
            #expect(parsed.description == text)
        }
    }

    @Test func canonicalTextUsesMinimalParentheses() throws {
        let a = FilterExpression.comparison(field: "a", op: .equal, value: .integer(1))
        let b = FilterExpression.comparison(field: "b", op: .equal, value: .integer(2))
        #expect(FilterExpression.and(a, .and(a, b)).description == "a = 1 and (a = 1 and b = 2)")
        #expect(FilterExpression.and(.and(a, b), a).description == "a = 1 and b = 2 and a = 1")
        #expect(FilterExpression.or(.and(a, b), a).description == "a = 1 and b = 2 or a = 1")
        #expect(FilterExpression.and(.or(a, b), a).description == "(a = 1 or b = 2) and a = 1")
        #expect(FilterExpression.not(.or(a, b)).description == "not (a = 1 or b = 2)")
        #expect(FilterExpression.not(.not(a)).description == "not not a = 1")
        #expect(FilterExpression.in(field: "tag", values: [.string("x\"y"), .double(1e-7)]).description == #"tag in ("x\"y", 1e-07)"#)
    }

    /// Random text, from filter-like tokens and arbitrary characters, never crashes the parser:
    /// it either parses (and then round-trips) or reports an error at a position inside the text.
    @Test func randomInputNeverCrashes() throws {
        let tokens = ["front", "tag", "and", "or", "not", "in", "contains", "starts", "with", "startswith", "(", ")",
                      ",", "=", "==", "!=", "<", "<=", ">", ">=", "!", "\"", "\"x\"", "\\", "2026-01-01", "2026-02-30",
                      "1", "-2", "3.5", "1e5", "1e999", "true", "FALSE", " ", "  ", "\n", "\t", "#", "é", "🇫🇷", "&", "|",
                      "'", "T10:00:00Z", ".", ":", "99999999999999999999", "\u{301}", "\r\n"]
        var g = SeededGenerator(seed: 7)
        var parsedCount = 0
        for _ in 0..<5_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...14, using: &g) {
                if Int.random(in: 0..<8, using: &g) == 0 {
                    let scalar = Unicode.Scalar(UInt32.random(in: 0...0x2FFF, using: &g)) ?? "?"
                    text.unicodeScalars.append(scalar)
                } else {
                    text += tokens.randomElement(using: &g) ?? ""
                    if Bool.random(using: &g) { text += " " }
                }
            }
            do {
                let expression = try FilterParser.parse(text)
                parsedCount += 1
                #expect(try FilterParser.parse(expression.description) == expression, "\(text)")
            } catch {
                let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                #expect(error.line >= 1 && error.line <= max(1, lines.count), "\(text)")
                let lineLength = error.line <= lines.count ? lines[error.line - 1].count : 0
                #expect(error.column >= 1 && error.column <= lineLength + 2, "\(text): \(error)")
                #expect(!error.caretLine.isEmpty)
            }
        }
        #expect(parsedCount > 0)
    }
}
