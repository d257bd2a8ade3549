import Foundation
import Testing

@testable import FirestoreREST

/// IMF-fixdate parsing (RFC 9110 §5.6.7) behind `Retry-After`, with written-out instants.
@Suite(.timeLimit(.minutes(2))) struct HTTPDateTests {
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 1_445_412_480),
        ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
        (" Fri, 31 Dec 1999 23:59:59 UTC\t", 946_684_799),
        ("Mon, 1 Jan 2024 00:00:00 GMT", 1_704_067_200),
    ])
    func parsesTheInstant(text: String, seconds: Double) throws {
        let date = try #require(HTTPDate.parse(text))
        #expect(date.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "", "soon", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Thu, 29 Feb 2001 00:00:00 GMT",
        "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 32 Jan 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
    ])
    func refusesWhatIsNotAnIMFFixdate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
