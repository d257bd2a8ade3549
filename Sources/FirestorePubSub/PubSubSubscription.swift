import FirestoreREST

/// A Pub/Sub subscription: `projects/PROJECT/subscriptions/SUBSCRIPTION`.
public struct PubSubSubscription: Sendable, Hashable, CustomStringConvertible {
    /// The project that owns the subscription.
    public let projectID: String
    /// The subscription's ID (the rule of ``PubSubTopic``'s ID).
    public let subscriptionID: String

    /// The subscription `subscriptionID` of `projectID`.
    /// - Throws: `FirestoreError` `.invalidArgument` naming what is wrong with either ID.
    public init(projectID: String, subscriptionID: String) throws(FirestoreError) {
        try PubSubTopic.checkProjectID(projectID)
        if let problem = PubSubTopic.problem(inResourceID: subscriptionID) {
            throw .invalidArgument("Pub/Sub subscription ID \"\(subscriptionID)\": \(problem)")
        }
        self.projectID = projectID
        self.subscriptionID = subscriptionID
    }

    /// `projects/PROJECT/subscriptions/SUBSCRIPTION`.
    public var name: String { "projects/\(projectID)/subscriptions/\(subscriptionID)" }

    /// The subscription's full name, as ``name``.
    public var description: String { name }
}
