/// One field tag read by ``ProtobufReader/nextField()``: which field follows, how it is delimited, and where
/// its tag starts (for error messages).
package struct ProtobufField: Sendable, Hashable {
    /// The field number, 1 ... 536,870,911 (`number` in the `.proto` file).
    package let number: UInt32
    /// How the payload after the tag is delimited.
    package let wireType: ProtobufWireType
    /// The byte offset of the tag's first byte in the decoded message body.
    package let offset: Int
}
