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

    @Test func httpDateInTheFutureIsTheDistance() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let text = formatter.string(from: Date().addingTimeInterval(3600))
        let delay = try #require(FirestoreError.parseRetryAfter(text))
        #expect(delay > .seconds(3590) && delay <= .seconds(3600))
    }

    @Test(arguments: ["", "soon", "-1", "1.5"])
    func malformedIsNil(text: String) {
        #expect(FirestoreError.parseRetryAfter(text) == nil)
    }
}
