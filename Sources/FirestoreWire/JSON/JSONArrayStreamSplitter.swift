/// Cuts a JSON array arriving in pieces into its elements' bytes, one element at a time, so a streamed response
/// (runQuery's array of `RunQueryResponse` elements) is decoded while it arrives and never held whole: the only
/// bytes kept are those of the element in progress.
///
/// It finds element boundaries (a `,` or `]` outside strings and nested arrays or objects); each element's bytes
/// are then parsed by ``JSONValue/parse(_:)``, which checks them. A body that is not an array (an error object) is
/// kept whole, up to ``maxNonArrayBytes``, for ``finish()`` to return.
package struct JSONArrayStreamSplitter: Sendable {
    /// The most bytes a body that is not an array may have (an error object is small).
    package static let maxNonArrayBytes = 1 << 20

    private enum Phase: Sendable {
        case beforeArray, beforeElement, inElement, afterArray, notAnArray
    }

    private var phase = Phase.beforeArray
    private var element: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var sawElement = false
    /// Bytes consumed so far, for error messages.
    private(set) var offset = 0

    package init() {}

    /// Consumes `bytes`, calling `emit` with each element completed by them, in order.
    /// - Throws: ``FirestoreError`` `.internal` naming the byte offset for bytes that cannot be part of a JSON
    ///   array (after its end, or a non-array body over ``maxNonArrayBytes``); `emit`'s error.
    package mutating func feed(
        _ bytes: some Collection<UInt8>, _ emit: ([UInt8]) throws(FirestoreError) -> Void
    ) throws(FirestoreError) {
        for byte in bytes {
            defer { offset += 1 }
            switch phase {
            case .beforeArray:
                if Self.isWhitespace(byte) { continue }
                if byte == UInt8(ascii: "[") {
                    phase = .beforeElement
                } else {
                    phase = .notAnArray
                    element.append(byte)
                }
            case .notAnArray:
                guard element.count < Self.maxNonArrayBytes else {
                    throw FirestoreError(
                        code: .internal, message: "response is not a JSON array and over \(Self.maxNonArrayBytes) bytes"
                    )
                }
                element.append(byte)
            case .beforeElement:
                if Self.isWhitespace(byte) { continue }
                if byte == UInt8(ascii: "]"), !sawElement {
                    phase = .afterArray
                    continue
                }
                phase = .inElement
                try scan(byte, emit)
            case .inElement:
                try scan(byte, emit)
            case .afterArray:
                guard Self.isWhitespace(byte) else {
                    throw FirestoreError(
                        code: .internal, message: "invalid JSON at byte \(offset): data after the end of the array")
                }
            }
        }
    }

    /// Checks that the body ended where an array may end.
    /// - Returns: `nil` for an array; the whole body when it was not an array (for the caller to parse).
    /// - Throws: ``FirestoreError`` `.internal` naming the byte offset for an array that was cut off.
    package mutating func finish() throws(FirestoreError) -> [UInt8]? {
        switch phase {
        case .afterArray: return nil
        case .notAnArray: return element
        case .beforeArray:
            throw FirestoreError(code: .internal, message: "invalid JSON at byte \(offset): the body is empty")
        case .beforeElement, .inElement:
            throw FirestoreError(
                code: .internal, message: "invalid JSON at byte \(offset): unexpected end of input in an array")
        }
    }

    private mutating func scan(_ byte: UInt8, _ emit: ([UInt8]) throws(FirestoreError) -> Void) throws(FirestoreError) {
        if inString {
            element.append(byte)
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
        case UInt8(ascii: "}") where depth > 0:
            depth -= 1
        case UInt8(ascii: "]") where depth > 0:
            depth -= 1
        case UInt8(ascii: ",") where depth == 0, UInt8(ascii: "]"):
            // At depth 0 (a nested `]` was taken above): the element ends here.
            while let last = element.last, Self.isWhitespace(last) { element.removeLast() }
            let complete = element
            element.removeAll(keepingCapacity: true)
            sawElement = true
            phase = byte == UInt8(ascii: ",") ? .beforeElement : .afterArray
            try emit(complete)
            return
        default:
            break
        }
        element.append(byte)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
