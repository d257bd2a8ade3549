import Foundation
import Testing

@testable import FirestoreREST

/// `grpc-status-details-bin` (`GRPCStatusDetails`), `grpc-timeout` (`GRPCTimeout`) and transaction IDs across the
/// two wires (`RPCTransactionID`).
@Suite("GRPC status details", .timeLimit(.minutes(1)))
struct GRPCStatusDetailsTests {
    static let link = "https://console.firebase.google.com/v1/r/project/p/firestore/indexes?create_composite=Eg"

    /// A `google.rpc.Status { code: 9, message: "needs an index", details: [RetryInfo { retry_delay: 2.5 s },
    /// Help { links: [{ url: link }] }] }`, written field by field.
    static func statusBytes() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.writeInt32Field(1, 9)
        writer.writeStringField(2, "needs an index")
        writer.writeMessageField(3) { any in
            any.writeStringField(1, "type.googleapis.com/google.rpc.RetryInfo")
            var info = ProtobufWriter()
            info.writeMessageField(1) { duration in
                duration.writeInt64Field(1, 2)
                duration.writeInt32Field(2, 500_000_000)
            }
            any.writeBytesField(2, info.bytes)
        }
        writer.writeMessageField(3) { any in
            any.writeStringField(1, "type.googleapis.com/google.rpc.Help")
            var help = ProtobufWriter()
            help.writeMessageField(1) { link in
                link.writeStringField(1, "create it")
                link.writeStringField(2, Self.link)
            }
            any.writeBytesField(2, help.bytes)
        }
        return writer.bytes
    }

    @Test func detailsWithoutPaddingGiveTheRetryDelayAndTheIndexLink() throws {
        let encoded = Data(Self.statusBytes()).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let details = try #require(GRPCStatusDetails(headers: [HTTPHeader("grpc-status-details-bin", encoded)]))
        #expect(details.message == "needs an index")
        #expect(details.retryDelay == .milliseconds(2500))
        #expect(details.helpURLs == [Self.link])
        var error = FirestoreError(code: .failedPrecondition, message: "needs an index")
        error.isServerStatus = true
        let applied = details.applied(to: error)
        #expect(applied.message == "needs an index (\(Self.link))")
        #expect(applied.indexURL == Self.link)
        #expect(applied.retryAfter == .milliseconds(2500))
    }

    @Test func aLinkAlreadyInTheMessageIsNotRepeated() throws {
        let encoded = Data(Self.statusBytes()).base64EncodedString()
        let details = try #require(GRPCStatusDetails(headers: [HTTPHeader("Grpc-Status-Details-Bin", encoded)]))
        let error = FirestoreError(code: .failedPrecondition, message: "create it here: \(Self.link)")
        #expect(details.applied(to: error).message == "create it here: \(Self.link)")
    }

    @Test(arguments: ["not base64!", "AAAA", ""])
    func malformedDetailsAreIgnored(_ value: String) {
        let details = GRPCStatusDetails(headers: [HTTPHeader("grpc-status-details-bin", value)])
        #expect(details?.retryDelay == nil)
        #expect(details?.helpURLs ?? [] == [])
    }

    @Test(arguments: [
        (60.0, "60000m"), (0.0004, "1m"), (0, "1m"), (-3, "1m"), (Double.nan, "1m"), (99_999.999, "99999999m"),
        (200_000, "200000S"), (1e12, "99999999H"),
    ])
    func timeoutHeader(_ seconds: Double, _ expected: String) {
        #expect(GRPCTimeout.headerValue(seconds: seconds) == expected)
    }

    @Test func transactionIDsKeepTheirRESTForm() throws {
        #expect(try RPCTransactionID.bytes("EQIDBA==") == [0x11, 0x02, 0x03, 0x04])
        #expect(try RPCTransactionID.bytes("EQIDBA") == [0x11, 0x02, 0x03, 0x04])
        #expect(try RPCTransactionID.bytes("-_8=") == [0xFB, 0xFF])
        #expect(RPCTransactionID.text([0x11, 0x02, 0x03, 0x04]) == "EQIDBA==")
        let error = try #require(throws: FirestoreError.self) { try RPCTransactionID.bytes("a b") }
        #expect(error.code == .invalidArgument)
        #expect(error.message == "transaction ID \"a b\" is not base64")
    }
}
