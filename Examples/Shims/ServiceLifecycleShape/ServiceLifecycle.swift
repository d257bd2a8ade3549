// The smallest shape of swift-service-lifecycle 2's API (https://github.com/swift-server/swift-service-lifecycle,
// module `ServiceLifecycle`) that README's service block uses, so the block compiles and runs here as written: the
// package cannot take swift-service-lifecycle in, and a local module of that name could clash with a user's.
// `ReadmeSnippetTests` maps `import ServiceLifecycle` in the block to `import ServiceLifecycleShape` in its compiled
// file. Same names, labels and types as the real one; simpler inside (a graceful shutdown reaches every service at
// once, not in reverse order). Not a product.

import Dispatch
import LoggingShape
import Synchronization

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// swift-service-lifecycle's `Service`: long-running work that a `ServiceGroup` runs.
public protocol Service: Sendable {
    /// Runs the service until it is done, cancelled or shut down gracefully.
    func run() async throws
}

/// A Unix signal a `ServiceGroup` reacts to.
public struct UnixSignal: Sendable, Hashable, CustomStringConvertible {
    let number: Int32

    public static let sigterm = UnixSignal(number: SIGTERM)
    public static let sigint = UnixSignal(number: SIGINT)
    public static let sighup = UnixSignal(number: SIGHUP)

    public var description: String { "signal \(number)" }
}

/// swift-service-lifecycle's `ServiceGroupConfiguration`.
public struct ServiceGroupConfiguration: Sendable {
    /// One service of the group.
    public struct ServiceConfiguration: Sendable {
        public var service: any Service

        public init(service: any Service) {
            self.service = service
        }
    }

    public var services: [ServiceConfiguration]
    /// The signals that shut the group down gracefully.
    public var gracefulShutdownSignals: [UnixSignal]
    /// The signals that cancel the group.
    public var cancellationSignals: [UnixSignal]
    public var logger: Logger

    public init(
        services: [ServiceConfiguration], gracefulShutdownSignals: [UnixSignal] = [],
        cancellationSignals: [UnixSignal] = [], logger: Logger
    ) {
        self.services = services
        self.gracefulShutdownSignals = gracefulShutdownSignals
        self.cancellationSignals = cancellationSignals
        self.logger = logger
    }

    public init(
        services: [any Service], gracefulShutdownSignals: [UnixSignal] = [], cancellationSignals: [UnixSignal] = [],
        logger: Logger
    ) {
        self.init(
            services: services.map { ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: gracefulShutdownSignals, cancellationSignals: cancellationSignals, logger: logger)
    }
}

/// swift-service-lifecycle's `ServiceGroup`: runs its services until one ends (then cancels the others), a
/// cancellation signal arrives (cancels them all) or a graceful shutdown signal arrives (shuts them down gracefully).
public actor ServiceGroup {
    let configuration: ServiceGroupConfiguration
    let shutdown = GracefulShutdown()

    public init(configuration: ServiceGroupConfiguration) {
        self.configuration = configuration
    }

    public init(
        services: [any Service], gracefulShutdownSignals: [UnixSignal] = [], cancellationSignals: [UnixSignal] = [],
        logger: Logger
    ) {
        self.init(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: gracefulShutdownSignals,
                cancellationSignals: cancellationSignals, logger: logger))
    }

    /// Shuts the group's services down gracefully.
    public func triggerGracefulShutdown() {
        shutdown.trigger()
    }

    /// Runs the services; returns when every one has ended, throwing the first error one threw.
    nonisolated public func run() async throws {
        let signals = AsyncStream<UnixSignal>.makeStream()
        let watched = configuration.gracefulShutdownSignals + configuration.cancellationSignals
        let sources = watched.map { unixSignal in
            signal(unixSignal.number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: unixSignal.number, queue: .global())
            source.setEventHandler { signals.continuation.yield(unixSignal) }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
        }
        let configuration = configuration
        let shutdown = shutdown
        try await GracefulShutdown.$current.withValue(shutdown) {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for entry in configuration.services {
                    group.addTask {
                        try await entry.service.run()
                        return true
                    }
                }
                group.addTask {
                    for await received in signals.stream {
                        if configuration.cancellationSignals.contains(received) { return false }
                        shutdown.trigger()
                    }
                    return false
                }
                // The first service to end, or a cancellation signal, cancels the rest.
                _ = try await group.next()
                group.cancelAll()
                try await group.waitForAll()
            }
        }
    }
}

/// The graceful shutdown of one group, which its services' tasks see.
final class GracefulShutdown: Sendable {
    @TaskLocal static var current: GracefulShutdown?

    struct State {
        var triggered = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    let state = Mutex(State())

    func trigger() {
        let waiters = state.withLock { state in
            state.triggered = true
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the shutdown is triggered (at once if it was) or the calling task is cancelled.
    func wait() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.triggered || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

/// What ended first: the operation, or the graceful shutdown.
enum ShutdownRace<T: Sendable>: Sendable {
    case value(T)
    case shutdown
}

/// Waits until the group running the calling task shuts down gracefully.
/// - Throws: `CancellationError` when the task is cancelled first, or runs in no group.
public func gracefulShutdown() async throws {
    guard let shutdown = GracefulShutdown.current else { throw CancellationError() }
    await shutdown.wait()
    try Task.checkCancellation()
}

/// Runs `operation` and cancels it when the group running the calling task shuts down gracefully; returns what it
/// returns.
public func cancelWhenGracefulShutdown<T: Sendable>(
    _ operation: @Sendable @escaping () async throws -> T
) async throws -> T {
    guard let shutdown = GracefulShutdown.current else { return try await operation() }
    return try await withThrowingTaskGroup(of: ShutdownRace<T>.self) { group in
        group.addTask { .value(try await operation()) }
        group.addTask {
            await shutdown.wait()
            return .shutdown
        }
        while let outcome = try await group.next() {
            group.cancelAll()
            if case .value(let value) = outcome { return value }
        }
        throw CancellationError()
    }
}
