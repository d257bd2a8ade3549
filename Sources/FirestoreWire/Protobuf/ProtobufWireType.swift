/// The wire type of a protobuf field: the low three bits of every field tag, saying how the payload that
/// follows is delimited (protobuf encoding guide, "Message Structure"; `google/protobuf/descriptor.proto`
/// field types map onto these).
///
/// Groups (3 and 4) are a proto2 feature no Firestore message uses; ``ProtobufReader`` refuses them.
package enum ProtobufWireType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// A base-128 varint: `int32`, `int64`, `uint32`, `uint64`, `bool`, enums.
    case varint = 0
    /// Eight little-endian bytes: `double`, `fixed64`, `sfixed64`.
    case fixed64 = 1
    /// A varint byte count, then that many bytes: `string`, `bytes`, messages, packed repeated scalars.
    case lengthDelimited = 2
    /// The start of a proto2 group (never valid here).
    case startGroup = 3
    /// The end of a proto2 group (never valid here).
    case endGroup = 4
    /// Four little-endian bytes: `float`, `fixed32`, `sfixed32`.
    case fixed32 = 5

    /// The wire type's name as error messages print it, e.g. `length-delimited`.
    package var description: String {
        switch self {
        case .varint: return "varint"
        case .fixed64: return "fixed64"
        case .lengthDelimited: return "length-delimited"
        case .startGroup: return "start-group"
        case .endGroup: return "end-group"
        case .fixed32: return "fixed32"
        }
    }
}
