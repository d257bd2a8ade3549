import FirestoreWire

/// One element of a response's `writeResults` (`commit`, `batchWrite`): `{}` for a delete, or
/// `{"updateTime": RFC 3339, "transformResults": [Value...]}` (REST `WriteResult`:
/// https://cloud.google.com/firestore/docs/reference/rest/v1/WriteResult). Shared by ``CommitResponse`` and
/// ``BatchWriteResponse``, which decide the write time.
enum WriteResultElement {
    /// The element's `updateTime` (`nil` when absent) and transform results, in order.
    /// - Parameters:
    ///   - what: the element's place in the response, for messages (`writeResults[2]`).
    ///   - malformed: makes the caller's error from a description of what is wrong.
    /// - Throws: `malformed(...)` for an element that is not an object, a time that is not RFC 3339, a member of
    ///   another JSON type, or a transform result that is not a Value.
    static func decode(
        _ element: JSONValue, what: String, _ malformed: (String) -> FirestoreError
    ) throws(FirestoreError) -> (updateTime: Timestamp?, transforms: [FirestoreValue]) {
        guard case .object = element else { throw malformed("\(what) is \(kind(element))") }
        var updateTime: Timestamp?
        switch element["updateTime"] {
        case nil: break
        case .string(let text)?:
            do {
                updateTime = try Timestamp(rfc3339: text)
            } catch {
                throw malformed("\(what).updateTime: \(error.message)")
            }
        case let other?: throw malformed("\(what).updateTime is \(kind(other))")
        }
        var transforms: [FirestoreValue] = []
        switch element["transformResults"] {
        case nil: break
        case .array(let values)?:
            for (position, value) in values.enumerated() {
                do {
                    transforms.append(try FirestoreValue(restJSON: value, at: "\(what).transformResults[\(position)]"))
                } catch {
                    throw malformed(error.message)
                }
            }
        case let other?: throw malformed("\(what).transformResults is \(kind(other))")
        }
        return (updateTime, transforms)
    }

    /// `a string`, `an array`: a JSON value's type for messages.
    static func kind(_ value: JSONValue) -> String {
        (["array", "object"].contains(value.typeName) ? "an " : "a ") + value.typeName
    }
}
