import Testing

@testable import FirestoreREST

@Suite("GRPC frames", .timeLimit(.minutes(2)))
struct GRPCFrameTests {
    @Test func encodeWritesZeroFlagAndBigEndianLength() throws {
        #expect(try GRPCFrame.encode([0x0A, 0x01, 0x61]) == [0, 0, 0, 0, 3, 0x0A, 0x01, 0x61])
        #expect(try GRPCFrame.encode([]) == [0, 0, 0, 0, 0])
        let big = [UInt8](repeating: 7, count: 0x01_02_03)
        #expect(try GRPCFrame.encode(big).prefix(5) == [0, 0x00, 0x01, 0x02, 0x03])
    }

    @Test func encodeRefusesAMessageOverTheLimit() {
        #expect(throws: FirestoreError.self) { try GRPCFrame.encode([1, 2, 3], maxMessageByteCount: 2) }
    }

    @Test func mergedChunkYieldsEveryMessage() throws {
        var decoder = GRPCFrameDecoder()
        let chunk: [UInt8] = [0, 0, 0, 0, 2, 0xAA, 0xBB, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xCC]
        #expect(try decoder.decode(chunk) == [[0xAA, 0xBB], [], [0xCC]])
        #expect(!decoder.hasPartialFrame)
        #expect(decoder.byteCount == 18)
    }

    @Test func messageSplitAtEveryByteBoundary() throws {
        let stream: [UInt8] = [0, 0, 0, 0, 3, 0x0A, 0x01, 0x61, 0, 0, 0, 0, 1, 0x7F]
        for cut in 0...stream.count {
            var decoder = GRPCFrameDecoder()
            var messages = try decoder.decode(stream[..<cut])
            messages += try decoder.decode(stream[cut...])
            #expect(messages == [[0x0A, 0x01, 0x61], [0x7F]], "cut at \(cut)")
            #expect(!decoder.hasPartialFrame)
        }
    }

    @Test func oneByteChunks() throws {
        let stream: [UInt8] = [0, 0, 0, 0, 2, 0x01, 0x02, 0, 0, 0, 0, 1, 0x03]
        var decoder = GRPCFrameDecoder()
        var messages: [[UInt8]] = []
        for byte in stream {
            messages += try decoder.decode([byte])
        }
        #expect(messages == [[0x01, 0x02], [0x03]])
    }

    @Test func truncatedBodyLeavesAPartialFrame() throws {
        var decoder = GRPCFrameDecoder()
        #expect(try decoder.decode([0, 0, 0, 0, 4, 0x01]) == [])
        #expect(decoder.hasPartialFrame)
        #expect(try decoder.decode([UInt8]()) == [])
    }

    @Test func compressedFlagNamesItsOffset() throws {
        var decoder = GRPCFrameDecoder()
        // One good 2-byte message (7 bytes), then a frame with flag 1 at offset 7.
        let chunk: [UInt8] = [0, 0, 0, 0, 2, 0xAA, 0xBB, 1, 0, 0, 0, 1, 0xCC]
        let error = #expect(throws: GRPCFrameError.self) { try decoder.decode(chunk) }
        #expect(error == GRPCFrameError(offset: 7, reason: .compressedMessage))
        #expect(
            error?.description == "gRPC message at byte offset 7 is compressed, but no compression was negotiated")
        // The decoder stays failed.
        #expect(throws: GRPCFrameError(offset: 7, reason: .compressedMessage)) { try decoder.decode([0, 0, 0, 0, 0]) }
    }

    @Test func invalidFlagAfterSplitChunks() throws {
        var decoder = GRPCFrameDecoder()
        #expect(try decoder.decode([0, 0, 0, 0, 1]) == [])
        #expect(try decoder.decode([0x42, 0x80]) == [[0x42]])  // flag byte 0x80 at offset 6
        let error = #expect(throws: GRPCFrameError.self) { try decoder.decode([0, 0, 0, 0]) }
        #expect(error == GRPCFrameError(offset: 6, reason: .invalidFlag(0x80)))
        #expect(error?.description == "invalid gRPC compressed flag 128 at byte offset 6 (expected 0)")
    }

    @Test func hugeLengthIsRefusedBeforeBuffering() throws {
        var decoder = GRPCFrameDecoder()
        // 0xFFFFFFFF = 4,294,967,295 bytes announced at offset 0; the length field starts at offset 1.
        let error = #expect(throws: GRPCFrameError.self) { try decoder.decode([0, 0xFF, 0xFF, 0xFF, 0xFF, 1]) }
        #expect(error == GRPCFrameError(offset: 1, reason: .messageTooLarge(length: 4_294_967_295, limit: 67_108_864)))
        #expect(
            error?.description
                == "gRPC message length 4294967295 at byte offset 1 exceeds the limit of 67108864 bytes")
    }

    @Test func customLimitAllowsExactlyTheLimit() throws {
        var decoder = GRPCFrameDecoder(maxMessageByteCount: 2)
        #expect(try decoder.decode([0, 0, 0, 0, 2, 9, 9]) == [[9, 9]])
        #expect(throws: GRPCFrameError(offset: 8, reason: .messageTooLarge(length: 3, limit: 2))) {
            try decoder.decode([0, 0, 0, 0, 3])
        }
    }
}
