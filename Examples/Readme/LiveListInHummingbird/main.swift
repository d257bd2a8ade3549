import FirestoreFeed
import HummingbirdShape

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")
let fruits = LiveList()
let feed = Task { try await fruits.run(db.collection("fruits").order(by: "name")) }

let router = Router()
router.get("fruits/events") { request, _ -> Response in
    let lastEventID =
        request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
        ?? request.uri.queryParameters.get("lastEventId")
    let events = fruits.events(lastEventID: lastEventID)
    return Response(
        status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
        body: ResponseBody { writer in
            for await event in events { try await writer.write(ByteBuffer(string: event.serverSentEvent)) }
            try await writer.finish(nil)
        })
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
try await app.runService()  // until SIGTERM or SIGINT
feed.cancel()
