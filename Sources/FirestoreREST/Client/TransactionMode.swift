import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a transaction is begun (REST reference: `TransactionOptions`).
package enum TransactionMode: Sendable, Hashable {
    /// Reads and writes; reads lock the documents they read. `retrying` names the transaction this one
    /// retries after it was aborted, which raises its priority in production.
    case readWrite(retrying: String? = nil)
    /// Reads only, no locks; at `readTime` (within the last 60 seconds) or at the time of the first read.
    case readOnly(readTime: Timestamp? = nil)

    /// The REST `TransactionOptions` object.
    package var restJSON: JSONValue {
        switch self {
        case .readWrite(let retrying):
            var readWrite: [String: JSONValue] = [:]
            if let retrying { readWrite["retryTransaction"] = .string(retrying) }
            return ["readWrite": .object(readWrite)]
        case .readOnly(let readTime):
            var readOnly: [String: JSONValue] = [:]
            if let readTime { readOnly["readTime"] = .string(readTime.rfc3339) }
            return ["readOnly": .object(readOnly)]
        }
    }
}
