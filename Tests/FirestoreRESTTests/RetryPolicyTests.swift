import Foundation
import Testing

@testable import FirestoreREST

/// The back-off arithmetic of `RetryPolicy` and the server delays it honours (field case D-27).
@Suite("RetryPolicy", .timeLimit(.minutes(2)))
struct RetryPolicyTests {
    @Test func defaultBackoffDoublesFrom250MillisecondsAndIsCappedAt32Seconds() {
        let policy = RetryPolicy.default
        #expect(policy.maxAttempts == 5)
        #expect(policy.backoff(beforeRetry: 1) == .milliseconds(250))
        #expect(policy.backoff(beforeRetry: 2) == .milliseconds(500))
        #expect(policy.backoff(beforeRetry: 3) == .seconds(1))
        #expect(policy.backoff(beforeRetry: 4) == .seconds(2))
        #expect(policy.backoff(beforeRetry: 8) == .seconds(32))  // 0.25 × 2^7 = 32
        #expect(policy.backoff(beforeRetry: 9) == .seconds(32))  // 64, capped
        #expect(policy.backoff(beforeRetry: 1000) == .seconds(32))  // 2^999 overflows to infinity, capped
    }

    @Test func jitterScalesTheWaitIntoTheLowerFraction() {
        let policy = RetryPolicy(initialBackoff: .seconds(1), jitter: 0.5)
        #expect(policy.delay(beforeRetry: 1, randomUnit: 0) == .seconds(1))
        #expect(policy.delay(beforeRetry: 1, randomUnit: 0.5) == .milliseconds(750))
        #expect(policy.delay(beforeRetry: 2, randomUnit: 1) == .seconds(1))  // 2 s × (1 − 0.5)
        let full = RetryPolicy(initialBackoff: .seconds(1), jitter: 1)
        #expect(full.delay(beforeRetry: 1, randomUnit: 0.25) == .milliseconds(750))
        let none = RetryPolicy(initialBackoff: .seconds(1), jitter: 0)
        #expect(none.delay(beforeRetry: 3, randomUnit: 0.9) == .seconds(4))
    }

    @Test func aServerDelayRaisesTheWaitAndATooLongOneEndsTheRetries() {
        let policy = RetryPolicy(initialBackoff: .milliseconds(100), jitter: 0, maxServerDelay: .seconds(60))
        #expect(policy.delay(beforeRetry: 1, serverDelay: .seconds(1), randomUnit: 0) == .seconds(1))
        #expect(policy.delay(beforeRetry: 1, serverDelay: .milliseconds(10), randomUnit: 0) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 1, serverDelay: .seconds(60), randomUnit: 0) == .seconds(60))
        #expect(policy.delay(beforeRetry: 1, serverDelay: .seconds(61), randomUnit: 0) == nil)
    }

    @Test func parametersOutOfRangeAreClamped() {
        let policy = RetryPolicy(maxAttempts: 0, multiplier: 0.5, jitter: 7)
        #expect(policy.maxAttempts == 1)
        #expect(policy.multiplier == 1)
        #expect(policy.jitter == 1)
        #expect(RetryPolicy.none.maxAttempts == 1)
    }

    @Test func retryableCodesAreTheTransientOnes() {
        let policy = RetryPolicy.default
        #expect(policy.retryableCodes == [.unavailable, .resourceExhausted, .internal, .deadlineExceeded, .unknown])
        #expect(policy.isRetryable(FirestoreError(code: .unavailable, message: "")))
        #expect(!policy.isRetryable(FirestoreError(code: .aborted, message: "")))
        #expect(policy.isRetryable(FirestoreError(code: .unknown, message: "")))
        #expect(!policy.isRetryable(FirestoreError(code: .failedPrecondition, message: "")))
    }

    @Test func retryAfterInSeconds() {
        let response = HTTPResponse(status: 429, headers: [HTTPHeader("Retry-After", " 7 ")])
        #expect(RetryPolicy.serverDelay(of: response) == .seconds(7))
    }

    @Test func retryAfterAsAPastHTTPDateIsZero() {
        let response = HTTPResponse(status: 503, headers: [HTTPHeader("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")])
        #expect(RetryPolicy.serverDelay(of: response) == .zero)
    }

    @Test func theRetryAfterHeaderWinsOverRetryInfo() {
        let body =
            #"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"9s"}]}}"#
        let response = HTTPResponse(status: 429, headers: [HTTPHeader("Retry-After", "2")], body: Data(body.utf8))
        #expect(RetryPolicy.serverDelay(of: response) == .seconds(2))
    }

    @Test func retryInfoInTheErrorBody() {
        let body = #"""
            {"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED","details":[
              {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED"},
              {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.500s"}]}}
            """#
        let response = HTTPResponse(status: 429, body: Data(body.utf8))
        #expect(RetryPolicy.serverDelay(of: response) == .milliseconds(1500))
    }

    @Test func noOrUnreadableServerDelay() {
        #expect(RetryPolicy.serverDelay(of: HTTPResponse(status: 503)) == nil)
        #expect(
            RetryPolicy.serverDelay(of: HTTPResponse(status: 503, headers: [HTTPHeader("Retry-After", "soon")])) == nil)
        #expect(RetryPolicy.serverDelay(of: HTTPResponse(status: 503, body: Data("<html>".utf8))) == nil)
    }
}
