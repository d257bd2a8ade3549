import FirestoreWire

extension Timestamp {
    /// This instant moved back by `duration` (nanoseconds kept, attoseconds below them dropped), clamped to
    /// ``minimum``; a negative duration moves it forward, clamped to ``maximum``.
    package func subtracting(_ duration: Duration) -> Timestamp {
        let (wholeSeconds, attoseconds) = duration.components
        var seconds = self.seconds.subtractingReportingOverflow(wholeSeconds)
        var nanos = Int64(self.nanos) - attoseconds / 1_000_000_000
        if nanos < 0 {
            nanos += 1_000_000_000
            seconds = seconds.partialValue.subtractingReportingOverflow(1)
        } else if nanos >= 1_000_000_000 {
            nanos -= 1_000_000_000
            seconds = seconds.partialValue.addingReportingOverflow(1)
        }
        guard !seconds.overflow, let moved = try? Timestamp(seconds: seconds.partialValue, nanos: Int32(nanos)) else {
            return duration > .zero ? .minimum : .maximum
        }
        return moved
    }

    /// The time from `earlier` to this instant (negative when `earlier` is later).
    package func duration(since earlier: Timestamp) -> Duration {
        .seconds(seconds - earlier.seconds) + .nanoseconds(Int64(nanos) - Int64(earlier.nanos))
    }
}
