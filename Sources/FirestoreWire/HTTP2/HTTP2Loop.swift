import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The thread that runs a ``GRPCChannel``'s calls: it owns the channel's HTTP/2 connections (``HTTP2Connection``),
/// reads and writes their sockets with `poll(2)`, and opens a new connection (on a thread of its own, through
/// ``HTTP2Socket/connect(baseURL:configuration:cancelled:)``) when a call needs one and none takes calls.
///
/// Other threads never touch a connection: they queue a command (a new call, bytes to send, room in a receive
/// buffer, a cancellation) and wake the thread through a pipe, so a command takes effect within microseconds
/// and no Swift concurrency thread ever blocks on the network.
///
/// One connection takes new calls at a time; calls share it as HTTP/2 streams. A connection that received a
/// `GOAWAY`, or that a call ``retire(_:)``d (a Listen stream that found its path dead), takes no new calls and is
/// closed once its calls have ended; the next call opens a new one.
final class HTTP2Loop: @unchecked Sendable {
    private enum Command {
        case add(GRPCStream)
        case resume(Int)
        case consumed(Int)
        case cancel(Int, FirestoreError)
        case retire(Int)
        case ping(Int)
        case connected(Int, Result<HTTP2Socket, FirestoreError>)
        /// Another channel to the same server doubts the path: ping every connection now.
        case checkPath
        case stop
    }

    private struct Inbox {
        var commands: [Command] = []
        /// Set once the thread has left its loop; no more commands are taken.
        var closed = false
    }

    private let baseURL: String
    private let configuration: GRPCChannel.Configuration
    private let inbox = Mutex(Inbox())
    /// The read and write ends of the pipe that wakes the thread.
    private let wakeDescriptors: (read: Int32, write: Int32)
    private let stopping = Atomic(false)
    private let connectionsOpened = Atomic<Int>(0)
    private let runningCalls = Atomic<Int>(0)
    /// The threads still running (the loop's own and connect attempts), and who waits for none to be left.
    private let threads = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((1, []))

    // The thread's own state.
    private var connections: [HTTP2Connection] = []
    /// The connection that takes new calls.
    private var current: HTTP2Connection?
    /// The connect attempt under way, if any.
    private var connecting: Int?
    private var attempts = 0
    /// Calls waiting for a connection.
    private var pending: [GRPCStream] = []
    /// Every running call, by ``GRPCCallState/id``, with its connection once it has one.
    private var calls: [Int: (stream: GRPCStream, connection: HTTP2Connection?)] = [:]

    /// Starts the thread.
    /// - Throws: ``FirestoreError`` `.unknown` when no pipe or thread can be had.
    init(baseURL: String, configuration: GRPCChannel.Configuration, name: String) throws(FirestoreError) {
        self.baseURL = baseURL
        self.configuration = configuration
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            throw FirestoreError(code: .unknown, message: "pipe failed: \(String(cString: strerror(errno)))")
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeDescriptors = (pipeEnds[0], pipeEnds[1])
        try CurlRuntime.initialize()
        guard TransferThread.start(name: name, { [self] in run() }) else {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw FirestoreError(code: .unknown, message: "could not start the gRPC channel's thread")
        }
        HTTP2PathWatch.register(self, baseURL: baseURL)
    }

    /// Pings every connection of the channel now (``HTTP2PathWatch``): another channel to the same server doubts the
    /// path (one of its calls waited in silence).
    func checkPath() { submit(.checkPath) }

    /// How many connections the channel has opened.
    var openedConnectionCount: Int { connectionsOpened.load(ordering: .relaxed) }

    /// How many calls are running (waiting for a connection or open on one).
    var callCount: Int { runningCalls.load(ordering: .relaxed) }

    /// Starts `stream`'s call. If the loop has stopped, the call ends with `.cancelled`.
    func add(_ stream: GRPCStream) {
        if !submit(.add(stream)) {
            stream.state.end(with: Self.shutDownError)
        }
    }

    /// Call `id` has more to send, or half-closed.
    func resume(_ id: Int) { submit(.resume(id)) }

    /// The consumer of call `id` took messages and fewer than the limit wait.
    func consumed(_ id: Int) { submit(.consumed(id)) }

    /// Ends call `id` with `error` (its stream is reset); nothing when it has already ended.
    func cancel(_ id: Int, error: FirestoreError) { submit(.cancel(id, error)) }

    /// The connection of call `id` takes no new calls: the next call opens a new one. For a caller that found the
    /// path dead (a Listen stream that stopped answering).
    func retire(_ id: Int) { submit(.retire(id)) }

    /// Sends an HTTP/2 PING on the connection of call `id`: unanswered for the configuration's
    /// ``CurlTransport/ConnectionHealth/pingTimeout``, the connection fails and every call on it ends with
    /// `.unavailable`.
    func ping(_ id: Int) { submit(.ping(id)) }

    /// Ends every call with `.cancelled` and the thread.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        submit(.stop)
    }

    /// Returns once the loop's thread and every connect attempt's thread have finished their work (after
    /// ``stop()``): the sockets and the wake-up pipe are closed by then. The threads exit right after.
    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = threads.withLock { threads -> Bool in
                guard threads.count > 0 else { return true }
                threads.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// One thread of the loop's is done.
    private func threadEnded() {
        let waiters = threads.withLock { threads -> [CheckedContinuation<Void, Never>] in
            threads.count -= 1
            guard threads.count == 0 else { return [] }
            defer { threads.waiters = [] }
            return threads.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    @discardableResult
    private func submit(_ command: Command) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.commands.append(command)
            // A full pipe already holds a wake-up.
            var one: UInt8 = 1
            _ = write(wakeDescriptors.write, &one, 1)
            return true
        }
    }

    static let shutDownError = FirestoreError(code: .cancelled, message: "the gRPC channel was shut down")

    /// Milliseconds of `CLOCK_MONOTONIC`.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000 + UInt64(time.tv_nsec) / 1_000_000
    }

    // MARK: The thread

    private func run() {
        var stop = false
        while !stop {
            let commands = inbox.withLock { inbox in
                defer { inbox.commands.removeAll() }
                return inbox.commands
            }
            for command in commands {
                if case .stop = command { stop = true } else { handle(command) }
            }
            if stop { break }
            let now = Self.now()
            for connection in connections {
                connection.checkDeadlines(now: now)
                if connection.doubted {
                    connection.doubted = false
                    HTTP2PathWatch.pathDoubted(to: baseURL, from: self)
                }
                connection.flush()
            }
            sweep()
            waitForEvents()
        }
        shutDown()
        threadEnded()
    }

    private func handle(_ command: Command) {
        switch command {
        case .add(let stream):
            calls[stream.state.id] = (stream, nil)
            if let current, current.takesNewCall(now: Self.now()) {
                // A suspect connection (a call passed its deadline on it) is used again once its PING is answered.
                if current.suspect { pending.append(stream) } else { open(stream, on: current) }
            } else {
                pending.append(stream)
                startConnecting()
            }
        case .resume(let id):
            if let (stream, connection) = calls[id], let connection { connection.resumeSending(stream) }
        case .consumed(let id):
            if let (stream, connection) = calls[id], let connection { connection.returnWindow(stream) }
        case .cancel(let id, let error):
            guard let (stream, connection) = calls.removeValue(forKey: id) else { return }
            stream.state.end(with: error, connectionsOpened: stream.connectionsOpened)
            if let connection {
                connection.cancel(stream)
                // A call that passed its deadline may have waited on a dead path: PING before the next call uses it.
                if error.code == .deadlineExceeded { connection.suspectAfterDeadline(now: Self.now()) }
            } else {
                pending.removeAll { $0 === stream }
            }
        case .retire(let id):
            if let connection = calls[id]?.connection {
                connection.retire()
                if current === connection { current = nil }
            }
        case .ping(let id):
            calls[id]?.connection?.ping(now: Self.now())
        case .connected(let attempt, let result):
            connected(attempt, result)
        case .checkPath:
            let now = Self.now()
            for connection in connections where connection.failure == nil && connection.mayPingAgain(now: now) {
                connection.ping(now: now)
            }
        case .stop:
            break
        }
        runningCalls.store(calls.count, ordering: .relaxed)
    }

    private func open(_ stream: GRPCStream, on connection: HTTP2Connection) {
        if let error = connection.open(stream, now: Self.now()) {
            calls[stream.state.id] = nil
            stream.state.end(with: error, connectionsOpened: stream.connectionsOpened)
        } else {
            calls[stream.state.id] = (stream, connection)
        }
    }

    private func startConnecting() {
        guard connecting == nil else { return }
        attempts += 1
        let attempt = attempts
        connecting = attempt
        let baseURL = baseURL
        let configuration = configuration
        threads.withLock { $0.count += 1 }
        let started = TransferThread.start(name: "gRPC connect") { [weak self] in
            do {
                let result = HTTP2Socket.connect(baseURL: baseURL, configuration: configuration) { [weak self] in
                    self?.stopping.load(ordering: .relaxed) ?? true
                }
                // When the loop has gone or stopped, the socket is released here (by the end of this block) and
                // its connection closed.
                self?.submit(.connected(attempt, result))
            }
            self?.threadEnded()
        }
        if !started {
            threadEnded()
            connected(attempt, .failure(FirestoreError(code: .unknown, message: "could not start a thread to connect")))
        }
    }

    private func connected(_ attempt: Int, _ result: Result<HTTP2Socket, FirestoreError>) {
        guard connecting == attempt else { return }
        connecting = nil
        let waiting = pending
        pending = []
        let connection: HTTP2Connection
        do throws(FirestoreError) {
            let socket = try result.get()
            connection = try HTTP2Connection(
                number: attempt, socket: socket, baseURL: baseURL,
                settingsTimeout: UInt64(max(1, configuration.connectTimeout) * 1_000), health: configuration.health,
                now: Self.now())
        } catch {
            for stream in waiting {
                calls[stream.state.id] = nil
                stream.state.end(with: stream.named(error, server: baseURL), connectionsOpened: 0)
            }
            return
        }
        connectionsOpened.add(1, ordering: .relaxed)
        connections.append(connection)
        current = connection
        for (index, stream) in waiting.enumerated() {
            stream.connectionsOpened = index == 0 ? 1 : 0
            open(stream, on: connection)
        }
    }

    /// Forgets ended calls, closes connections that are done, and starts the calls that waited for a suspect
    /// connection once it answered.
    private func sweep() {
        for connection in connections {
            for stream in connection.takeEnded() { calls[stream.state.id] = nil }
        }
        // The count is kept current here too: a call that ended on a live connection is gone from `calls` now.
        runningCalls.store(calls.count, ordering: .relaxed)
        if connecting == nil, !pending.isEmpty, let current, !current.suspect {
            if current.takesNewCall(now: Self.now()) {
                let waiting = pending
                pending = []
                for stream in waiting { open(stream, on: current) }
            } else {
                self.current = nil
                startConnecting()
            }
        }
        let done = connections.filter(\.isDone)
        guard !done.isEmpty else { return }
        connections.removeAll { $0.isDone }
        if let current, current.isDone || !current.acceptsStreams { self.current = nil }
        for connection in done {
            // Calls still on a retired connection whose streams nghttp2 already forgot end here too.
            connection.fail(FirestoreError(code: .unavailable, message: "the HTTP/2 connection closed"))
            for stream in connection.takeEnded() { calls[stream.state.id] = nil }
        }
        runningCalls.store(calls.count, ordering: .relaxed)
        if !pending.isEmpty { startConnecting() }
    }

    /// Waits for a socket to be ready, a command, or the next deadline (at most 1 s), and serves the sockets.
    private func waitForEvents() {
        var descriptors = [pollfd(fd: wakeDescriptors.read, events: Int16(POLLIN), revents: 0)]
        for connection in connections {
            var events = Int16(POLLIN)
            if connection.wantsWrite { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: connection.socket.descriptor, events: events, revents: 0))
        }
        let now = Self.now()
        var timeout: UInt64 = 1_000
        for connection in connections {
            if let deadline = connection.nextDeadline() {
                timeout = min(timeout, deadline > now ? deadline - now : 0)
            }
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(timeout))
        guard ready > 0 else { return }
        if descriptors[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while drain.withUnsafeMutableBytes({ read(wakeDescriptors.read, $0.baseAddress, $0.count) }) > 0 {}
        }
        let after = Self.now()
        for (index, connection) in connections.enumerated() {
            let events = descriptors[index + 1].revents
            guard events != 0 else { continue }
            if events & Int16(POLLIN | POLLERR | POLLHUP) != 0 { connection.readable(now: after) }
            connection.flush()
        }
        sweep()
    }

    private func shutDown() {
        HTTP2PathWatch.unregister(self)
        for (stream, _) in calls.values { stream.state.end(with: Self.shutDownError) }
        calls = [:]
        pending = []
        current = nil
        connections = []
        let late = inbox.withLock { inbox in
            inbox.closed = true
            return inbox.commands
        }
        for case .add(let stream) in late { stream.state.end(with: Self.shutDownError) }
        runningCalls.store(0, ordering: .relaxed)
        close(wakeDescriptors.read)
        close(wakeDescriptors.write)
    }
}
