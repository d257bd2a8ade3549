/// Waits until `condition` holds, checking every 50 ms for up to `seconds`; true when it held. Never blocks a
/// thread: it sleeps with `Task.sleep`, and a cancelled task gets one last check.
package func eventually(seconds: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        do { try await Task.sleep(for: .milliseconds(50)) } catch { break }
    }
    return condition()
}

/// ``eventually(seconds:_:)`` for a condition that awaits (an actor's state).
package func eventuallyAsync(seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        do { try await Task.sleep(for: .milliseconds(50)) } catch { break }
    }
    return await condition()
}
