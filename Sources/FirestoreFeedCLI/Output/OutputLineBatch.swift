/// Lines gathered into writes of at most ``limit`` bytes each, newlines included, for output that is all at hand (a
/// query's documents): one write per batch instead of one per line. A line that does not fit beside the batch so far
/// starts the next one; a line longer than ``limit`` is a batch of its own. Lines are never split or reordered.
package struct OutputLineBatch {
    /// The most bytes one batch holds, unless a single line is longer.
    package let limit: Int
    private var bytes: [UInt8] = []

    /// An empty batch of at most `limit` bytes.
    package init(limit: Int) {
        self.limit = limit
        bytes.reserveCapacity(limit)
    }

    /// Adds `line` and a newline.
    /// - Returns: the batch gathered so far, to be written before this line, when the line does not fit beside it;
    ///   otherwise `nil`.
    /// - Complexity: O(the line's bytes).
    package mutating func add(_ line: String) -> [UInt8]? {
        var full: [UInt8]?
        let utf8 = line.utf8
        if !bytes.isEmpty, bytes.count + utf8.count + 1 > limit {
            full = bytes
            bytes.removeAll(keepingCapacity: true)
        }
        bytes.append(contentsOf: utf8)
        bytes.append(UInt8(ascii: "\n"))
        return full
    }

    /// The lines added since the last batch returned, or `nil` when there are none; the batch is empty after.
    package mutating func finish() -> [UInt8]? {
        guard !bytes.isEmpty else { return nil }
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }
}
