import Testing

@testable import FirestoreREST

@Suite("GRPC status", .timeLimit(.minutes(2)))
struct GRPCStatusTests {
    @Test(arguments: [
        (0, FirestoreError.Code.unknown), (1, .cancelled), (2, .unknown), (3, .invalidArgument),
        (4, .deadlineExceeded), (5, .notFound), (6, .alreadyExists), (7, .permissionDenied),
        (8, .resourceExhausted), (9, .failedPrecondition), (10, .aborted), (11, .outOfRange),
        (12, .unimplemented), (13, .internal), (14, .unavailable), (15, .dataLoss), (16, .unauthenticated),
        (17, .unknown), (999, .unknown),
    ])
    func numberMapsToCode(number: Int, code: FirestoreError.Code) {
        #expect(GRPCStatus(number: number, message: "").code == code)
    }

    @Test func readsTrailersAndDecodesTheMessage() throws {
        let status = try #require(
            GRPCStatus(headers: [
                HTTPHeader("grpc-status", "5"),
                HTTPHeader("Grpc-Message", "Document%20%22c/d%22%20not%20found%E2%9C%93"),
            ]))
        #expect(status == GRPCStatus(number: 5, message: "Document \"c/d\" not found✓"))
        #expect(status.error.code == .notFound)
        #expect(status.error.message == "Document \"c/d\" not found✓")
        #expect(status.error.isServerStatus)
        #expect(!status.isOK)
    }

    @Test func missingAndMalformedStatus() {
        #expect(GRPCStatus(headers: [HTTPHeader("content-type", "application/grpc")]) == nil)
        #expect(
            GRPCStatus(headers: [HTTPHeader("grpc-status", "ok")])
                == GRPCStatus(number: 2, message: "invalid grpc-status \"ok\""))
        #expect(GRPCStatus(number: 14, message: "").error.message == "grpc-status 14")
    }

    @Test func percentDecodingKeepsBadEscapes() {
        #expect(GRPCPercentDecoding.decode("100%") == "100%")
        #expect(GRPCPercentDecoding.decode("a%zzb%4") == "a%zzb%4")
        #expect(GRPCPercentDecoding.decode("%41%62c") == "Abc")
        #expect(GRPCPercentDecoding.decode("%ff") == "\u{FFFD}")
    }

    @Test(arguments: [
        (400, FirestoreError.Code.internal), (401, .unauthenticated), (403, .permissionDenied), (404, .unimplemented),
        (429, .unavailable), (502, .unavailable), (503, .unavailable), (504, .unavailable), (500, .unknown),
        (302, .unknown),
    ])
    func httpStatusMapsToCode(status: Int, code: FirestoreError.Code) {
        #expect(GRPCStatus.code(forHTTPStatus: status) == code)
    }
}
