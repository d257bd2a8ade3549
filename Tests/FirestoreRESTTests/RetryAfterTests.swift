import Foundation
import Testing

@testable import FirestoreREST

/// `Retry-After` parsing (RFC 9110 §10.2.3), used by the feed's and the client's back-off.
@Suite(.timeLimit(.minutes(2))) struct RetryAfterTests {
    @Test func delaySeconds() {
        #expect(FirestoreError.parseRetryAfter("1") == .seconds(1))
        #expect(FirestoreError.parseRetryAfter(" 120 ") == .seconds(120))
        #expect(FirestoreError.parseRetryAfter("99999999999999999999") == .seconds(2_147_483_647))
    }

    @Test func httpDateInThePastIsZero() {
        #expect(FirestoreError.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == .zero)
    }

    /// Measured from an injected `now` (Wed, 21 Oct 2015 07:28:00 GMT), so the distance is exact.
    @Test func httpDateInTheFutureIsTheDistance() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)
        #expect(FirestoreError.parseRetryAfter("Wed, 21 Oct 2015 08:28:00 GMT", now: now) == .seconds(3600))
        #expect(FirestoreError.parseRetryAfter("Wed, 21 Oct 2015 07:28:01 GMT", now: now) == .seconds(1))
        #expect(FirestoreError.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .zero)
        #expect(FirestoreError.parseRetryAfter("Wed, 21 Oct 2015 07:27:59 GMT", now: now) == .zero)
    }

    @Test(arguments: ["", "soon", "-1", "1.5"])
    func malformedIsNil(text: String) {
        #expect(FirestoreError.parseRetryAfter(text) == nil)
    }
}
