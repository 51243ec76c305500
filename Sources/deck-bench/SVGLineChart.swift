import Foundation

/// A small SVG line chart with logarithmic axes: one polyline with dots per series, decade
/// grid lines, a legend, and optional dashed guide lines (e.g. "linear growth").
struct SVGLineChart {
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
        var dashed = false
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var series: [Series]
    var width = 820.0
    var height = 500.0

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]

    /// The chart as an SVG document.
    func render() -> String {
        let plot = (left: 80.0, right: width - 250, top: 50.0, bottom: height - 60)
        let all = series.flatMap(\.points).filter { $0.x > 0 && $0.y > 0 }
        guard !all.isEmpty else { return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>\n" }
        let xRange = decades(all.map(\.x)), yRange = decades(all.map(\.y))
        func px(_ x: Double) -> Double { plot.left + (log10(x) - xRange.lower) / (xRange.upper - xRange.lower) * (plot.right - plot.left) }
        func py(_ y: Double) -> Double { plot.bottom - (log10(y) - yRange.lower) / (yRange.upper - yRange.lower) * (plot.bottom - plot.top) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(width / 2))" y="24" text-anchor="middle" font-size="15" font-weight="bold">\(escape(title))</text>

            """
        // Grid and ticks: every decade, with minor lines at 2x and 5x.
        for exponent in Int(xRange.lower)...Int(xRange.upper) {
            let value = pow(10, Double(exponent))
            let x = px(value)
            svg += line(x, plot.top, x, plot.bottom, stroke: "#ccc")
            svg += "<text x=\"\(f(x))\" y=\"\(f(plot.bottom + 18))\" text-anchor=\"middle\">\(escape(label(value)))</text>\n"
        }
        for exponent in Int(yRange.lower)...Int(yRange.upper) {
            let value = pow(10, Double(exponent))
            let y = py(value)
            svg += line(plot.left, y, plot.right, y, stroke: "#ccc")
            svg += "<text x=\"\(f(plot.left - 8))\" y=\"\(f(y + 4))\" text-anchor=\"end\">\(escape(label(value)))</text>\n"
            for minor in [2.0, 5.0] where exponent < Int(yRange.upper) {
                svg += line(plot.left, py(value * minor), plot.right, py(value * minor), stroke: "#eee")
            }
        }
        svg += "<rect x=\"\(f(plot.left))\" y=\"\(f(plot.top))\" width=\"\(f(plot.right - plot.left))\" height=\"\(f(plot.bottom - plot.top))\" fill=\"none\" stroke=\"#333\"/>\n"
        svg += "<text x=\"\(f((plot.left + plot.right) / 2))\" y=\"\(f(height - 18))\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
        svg += "<text transform=\"translate(20 \(f((plot.top + plot.bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">\(escape(yLabel))</text>\n"

        for (index, entry) in series.enumerated() {
            let color = Self.palette[index % Self.palette.count]
            let points = entry.points.filter { $0.x > 0 && $0.y > 0 }.sorted { $0.x < $1.x }
            let dash = entry.dashed ? " stroke-dasharray=\"6 4\"" : ""
            if points.count > 1 {
                let coordinates = points.map { "\(f(px($0.x))),\(f(py($0.y)))" }.joined(separator: " ")
                svg += "<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>\n"
            }
            if !entry.dashed {
                for point in points {
                    svg += "<circle cx=\"\(f(px(point.x)))\" cy=\"\(f(py(point.y)))\" r=\"3.5\" fill=\"\(color)\"><title>\(escape(entry.name)): \(escape(label(point.x))) → \(String(format: "%.4g", point.y))</title></circle>\n"
                }
            }
            let legendY = plot.top + 8 + Double(index) * 20
            svg += line(plot.right + 15, legendY, plot.right + 40, legendY, stroke: color, width: 2, extra: dash)
            svg += "<text x=\"\(f(plot.right + 46))\" y=\"\(f(legendY + 4))\">\(escape(entry.name))</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// The whole decades (as base-10 exponents) that contain `values`.
    private func decades(_ values: [Double]) -> (lower: Double, upper: Double) {
        let logs = values.map(log10)
        let lower = (logs.min() ?? 0).rounded(.down), upper = (logs.max() ?? 1).rounded(.up)
        return (lower, max(upper, lower + 1))
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1, extra: String = "") -> String {
        "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(f(width))\"\(extra)/>\n"
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    /// 10000 → "10k", 0.001 → "0.001", 1000000 → "1M".
    private func label(_ value: Double) -> String {
        if value >= 1_000_000 { return String(format: "%gM", value / 1_000_000) }
        if value >= 1000 { return String(format: "%gk", value / 1000) }
        return String(format: "%g", value)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
