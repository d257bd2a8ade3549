import FirestoreFeed
import VaporShape

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")
let fruits = LiveList()  // the last 1,000 events kept for reconnects, 256 buffered per client
let feed = Task { try await fruits.run(db.collection("fruits").order(by: "name")) }

let app = try await Application.make(.detect())
app.get("fruits", "events") { request async throws -> Response in
    // A reconnecting EventSource sends Last-Event-ID; a page that opens a new one can pass ?lastEventId=.
    let lastEventID = request.headers.first(name: "Last-Event-ID") ?? request.query[String.self, at: "lastEventId"]
    let events = fruits.events(lastEventID: lastEventID)
    let headers = HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")])
    return Response(
        status: .ok, headers: headers,
        body: .init(asyncStream: { writer in
            for await event in events { try await writer.write(.buffer(ByteBuffer(string: event.serverSentEvent))) }
            try await writer.write(.end)  // cut (too far behind): the EventSource reconnects with its last id
        }))
}
try await app.execute()
feed.cancel()
try await app.asyncShutdown()
