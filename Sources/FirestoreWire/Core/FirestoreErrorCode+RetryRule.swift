extension FirestoreError.Code {
    /// What sending again can do for an error with one code: the one table the client (``RetryPolicy``'s default
    /// ``RetryPolicy/retryableCodes``) and the change feed (`PollingPolicy.isPermanent(_:)`, the Listen stream's
    /// reconnection) both read, so that they never disagree about a code.
    ///
    /// Each row of ``retryRule`` says why, from the gRPC status code semantics
    /// (https://grpc.github.io/grpc/core/md_doc_statuscodes.html), the recommended actions of Firestore's REST error
    /// codes (https://cloud.google.com/firestore/docs/use-rest-api#error_codes), the retry codes of the Firestore server
    /// SDKs' generated clients (`google/firestore/v1/firestore_grpc_service_config.json` in googleapis/googleapis:
    /// reads retry `UNAVAILABLE`, `INTERNAL`, `DEADLINE_EXCEEDED`) and the Firebase SDKs' listen rule
    /// (`isPermanentError` in firebase-js-sdk `packages/firestore/src/remote/rpc_error.ts`). Every row is checked
    /// for both users in `ErrorRetryTableTests`.
    ///
    /// Whether a request may be sent again at all is a separate question, answered by the call: only idempotent
    /// calls (reads) are retried on a server's answer; a `commit` is sent again only when the transport proves it
    /// never left (connection refused, DNS failure), whatever the code, because a lost response may hide an
    /// applied write (`WritesUnderFaultsLiveTests`).
    public struct RetryRule: Sendable, Hashable, CustomStringConvertible {
        /// Whether an idempotent request that failed with this code is sent again after back-off
        /// (``RetryPolicy``'s default ``RetryPolicy/retryableCodes``).
        public let retriesRequest: Bool
        /// Whether a change feed (polling or Listen) keeps its last snapshot and tries again after back-off;
        /// `false`: the error ends the feed.
        public let feedRetries: Bool
        /// Whether the client renews its credentials and sends once more before giving up: the request path once
        /// (``Credentials/invalidate(refusedHeader:)``), the Listen stream by reopening once.
        public let renewsCredentials: Bool
        /// Why, in one sentence.
        public let reason: String

        /// `request: retried|thrown, feed: retries|ends`.
        public var description: String {
            "request: \(retriesRequest ? "retried" : "thrown"), feed: \(feedRetries ? "retries" : "ends")"
                + (renewsCredentials ? ", credentials renewed once" : "")
        }
    }

    /// The 16 canonical error codes of `google/rpc/code.proto`, in their numeric order (1 `CANCELLED` ...
    /// 16 `UNAUTHENTICATED`): the rows of the retry table.
    public static let canonical: [FirestoreError.Code] = [
        .cancelled, .unknown, .invalidArgument, .deadlineExceeded, .notFound, .alreadyExists, .permissionDenied,
        .resourceExhausted, .failedPrecondition, .aborted, .outOfRange, .unimplemented, .internal, .unavailable,
        .dataLoss, .unauthenticated,
    ]

    /// The codes whose ``RetryRule/retriesRequest`` is set: `UNKNOWN`, `DEADLINE_EXCEEDED`, `RESOURCE_EXHAUSTED`,
    /// `INTERNAL`, `UNAVAILABLE`.
    public static var retriedRequestCodes: Set<FirestoreError.Code> {
        Set(canonical.filter { $0.retryRule.retriesRequest })
    }

    /// This code's row of the retry table. A code outside ``canonical`` (a status string this client does not know)
    /// is treated as `UNKNOWN`, as gRPC treats unknown codes.
    /// - Complexity: O(1).
    public var retryRule: RetryRule {
        switch self {
        case .cancelled:
            return RetryRule(
                retriesRequest: false, feedRetries: true, renewsCredentials: false,
                reason: "the caller cancelled (a task cancelled ends the request and the feed before this rule is "
                    + "asked); a CANCELLED the server or a proxy sends on a live feed is a dropped stream, which the "
                    + "Firebase SDKs reopen (isPermanentError: not permanent)")
        case .unknown:
            return RetryRule(
                retriesRequest: true, feedRetries: true, renewsCredentials: false,
                reason: "gRPC: an error from another error space or without enough information; an HTTP 500 with "
                    + "no message (the emulator's list with orderBy and a page token) or a reply that is not a "
                    + "Firestore one, so worth another bounded try; the Firebase SDKs retry it")
        case .invalidArgument:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: false,
                reason: "gRPC: the request is wrong whatever the system's state; the same request fails again")
        case .deadlineExceeded:
            return RetryRule(
                retriesRequest: true, feedRetries: true, renewsCredentials: false,
                reason: "gRPC: the deadline passed first (a timeout, a stalled transfer); Firestore's REST "
                    + "error codes and the server SDKs' read config retry it with back-off")
        case .notFound:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: false,
                reason: "gRPC: the entity does not exist (a document read returns exists == false instead); "
                    + "a missing database stays missing")
        case .alreadyExists:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: false,
                reason: "gRPC: a create found the document; sending the create again fails again")
        case .permissionDenied:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: false,
                reason: "gRPC: the caller may not do this (IAM or security rules); only a change of rules or "
                    + "credentials helps")
        case .resourceExhausted:
            return RetryRule(
                retriesRequest: true, feedRetries: true, renewsCredentials: false,
                reason: "gRPC: a quota or rate limit; Firestore's REST error codes says retry with exponential "
                    + "back-off (Retry-After honoured); a body over the client's own size cap is never retried")
        case .failedPrecondition:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: false,
                reason: "gRPC: the system is not in the state the request needs (a missing index, an updateTime "
                    + "precondition, TLS verification): do not retry until it is fixed")
        case .aborted:
            return RetryRule(
                retriesRequest: false, feedRetries: true, renewsCredentials: false,
                reason: "gRPC: retry at a higher level; runTransaction retries the whole transaction (a read "
                    + "inside an aborted transaction fails again alone, and the server SDKs do not retry it), "
                    + "while a feed's poll is no transaction and Firestore's REST error codes says a "
                    + "non-transactional request may be retried")
        case .outOfRange:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: false,
                reason: "gRPC: past the valid range; the same request is out of range again")
        case .unimplemented:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: false,
                reason: "gRPC: the server does not support the operation")
        case .internal:
            return RetryRule(
                retriesRequest: true, feedRetries: true, renewsCredentials: false,
                reason: "gRPC: a server invariant broke; Firestore's REST error codes and the server SDKs' read "
                    + "config retry it with back-off")
        case .unavailable:
            return RetryRule(
                retriesRequest: true, feedRetries: true, renewsCredentials: false,
                reason: "gRPC: most likely transient, correct it by retrying with back-off (server busy, "
                    + "connection refused or reset, DNS failure)")
        case .dataLoss:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: false,
                reason: "gRPC: unrecoverable data loss or corruption; here also a Listen message this client "
                    + "cannot decode (over HTTP/2 and TLS a decoder mismatch, which a reopened stream would repeat) "
                    + "and a cassette that cannot be written; the Firebase SDKs treat it as permanent")
        case .unauthenticated:
            return RetryRule(
                retriesRequest: false, feedRetries: false, renewsCredentials: true,
                reason: "gRPC: no valid credentials; a new token is fetched and the request sent once more (a "
                    + "401 applied nothing), the Listen stream reopened once; a second refusal is final")
        default:
            return Self.unknown.retryRule
        }
    }
}
