/// Runs an action once when the last reference to it goes: what ends a feed's work when its stream is dropped
/// without being iterated to the end (a buffer terminated, a relay task cancelled, a checkpointed feed closed).
final class ReleaseAction: Sendable {
    private let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    deinit { action() }
}
