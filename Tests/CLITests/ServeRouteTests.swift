import FirestoreREST
import Testing

@testable import FirestoreFeedCLI

/// What `firestore-feed serve` reads from a request (issue 39): the path, the bearer token from the header or from
/// `?token=` (an `EventSource` cannot set headers), and where the stream resumes, `Last-Event-ID` before
/// `?lastEventId=` (a reconnecting `EventSource` sends the header to a URL that may carry the page's first id). No
/// network.
@Suite(.timeLimit(.minutes(1))) struct ServeRouteTests {
    @Test func theTokenComesFromTheHeaderOrTheQuery() {
        let header = ServeRoute(target: "/events", headers: [HTTPHeader("Authorization", "Bearer s3cret")])
        #expect(header.path == "/events")
        #expect(header.tokens == ["s3cret"])
        #expect(header.carries(token: "s3cret"))
        #expect(!header.carries(token: "s3cre"))
        #expect(!header.carries(token: "s3cret!"))
        let query = ServeRoute(target: "/?token=a%20b&x=1", headers: [])
        #expect(query.path == "/")
        #expect(query.carries(token: "a b"))
        let basic = ServeRoute(target: "/events", headers: [HTTPHeader("authorization", "Basic s3cret")])
        #expect(basic.tokens == [])
        #expect(!ServeRoute(target: "/events", headers: []).carries(token: "s3cret"))
    }

    @Test func theLastEventIDHeaderComesBeforeTheQuery() {
        #expect(ServeRoute(target: "/events?lastEventId=3", headers: []).lastEventID == "3")
        #expect(
            ServeRoute(target: "/events?lastEventId=3", headers: [HTTPHeader("Last-Event-ID", "7")]).lastEventID
                == "7")
        #expect(ServeRoute(target: "/events", headers: []).lastEventID == nil)
    }
}
