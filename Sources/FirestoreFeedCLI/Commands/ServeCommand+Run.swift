import FirestoreFeed
import FirestoreREST
import Foundation

extension ServeCommand {
    /// Connects, listens, then keeps the live list of the query until SIGTERM or SIGINT (exit 0) or the feed fails for
    /// good (exit 1).
    package func run() async throws(CLIError) {
        let firestore = try await connection.makeClient()
        let served = query.query(on: firestore)
        do {
            _ = try served.structuredQuery()
        } catch {
            throw .usage(error.message)
        }
        // A socket per client: the soft limit of open files (often 1,024) must not be what caps the clients.
        let needed = maxClients + OpenFileLimit.reserve
        let openFiles = OpenFileLimit.raise(to: needed)
        if openFiles < needed {
            Console.error(
                "serve: warning: at most \(openFiles) open files (ulimit -n; the hard limit), fewer than "
                    + "--max-clients \(maxClients) needs (\(needed)): clients past it wait unserved")
        }
        let list = LiveList(capacity: replayEvents, clientBuffer: clientBuffer)
        let server: LiveListHTTPServer
        do {
            server = try LiveListHTTPServer(
                list: list, host: host, port: port,
                options: .init(
                    token: token, maxClients: maxClients, clientBuffer: clientBuffer,
                    page: LiveListPage.html(title: query.collectionPath)))
        } catch {
            throw .runtime(error)
        }
        // SIGTERM's graceful end from before the address is printed: a client of the address may stop serve at once.
        TerminateSignal.install(interrupt: true)
        // The accept loop blocks: a thread of its own, started before the address is printed.
        let acceptor = Thread { server.run() }
        acceptor.name = "serve accept"
        acceptor.start()
        let url = "http://\(server.host):\(server.port)/"
        // The empty list's event: a client back with an id below it (a server before this one) gets a reset.
        Console.error(
            "serve: \(query.collectionPath) on \(url) (events at \(url)events, numbered from \(list.lastEventID)); "
                + (token == nil ? "" : "with the token (Authorization: Bearer, or ?token= on the page's URL); ")
                + "SIGTERM or Ctrl-C stops")
        await Console.output(url)
        let source = mode.source
        let interval = self.interval
        try await CLIError.runtimeErrors {
            try await TerminateSignal.untilTerminated(interrupt: true) {
                try await list.run(served, source: source, interval: interval, onEvent: Console.report)
            }
        }
    }
}
