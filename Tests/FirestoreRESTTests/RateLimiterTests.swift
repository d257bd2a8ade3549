import Testing

@testable import FirestoreREST

/// The 500/50/5 ramp-up of ``RateLimiter``, with the Node SDK's arithmetic (`rate-limiter.ts`): written-out
/// capacities, tokens and delays.
@Suite(.timeLimit(.minutes(2))) struct RateLimiterTests {
    /// 500 × 1.5^k, rounded down, every 5 minutes; 10,000 at most.
    @Test func capacityGrowsFiftyPercentEveryFiveMinutes() {
        let limiter = RateLimiter.rampUp()
        let capacities = (0...9).map { limiter.capacity(at: .seconds(300 * $0)) }
        #expect(capacities == [500, 750, 1125, 1687, 2531, 3796, 5695, 8542, 10_000, 10_000])
        #expect(limiter.capacity(at: .seconds(299)) == 500)
        #expect(limiter.capacity(at: .milliseconds(299_999)) == 500)
        #expect(limiter.capacity(at: .seconds(300)) == 750)
        #expect(limiter.capacity(at: .seconds(86_400 * 365)) == 10_000)
        #expect(RateLimiter.rampUp(initialOpsPerSecond: 100, maxOpsPerSecond: 200).capacity(at: .seconds(900)) == 200)
    }

    /// The bucket starts full, refills `floor(elapsed ms × capacity / 1000)` tokens, never above the capacity.
    @Test func tokensAndDelays() {
        var limiter = RateLimiter.rampUp()
        var steps: [String] = []
        func take(_ count: Int, _ time: Duration) {
            let went = limiter.tryMakeRequest(count, at: time)
            steps.append("take \(count) at \(time): \(went), \(limiter.availableTokens) left")
        }
        func delay(_ count: Int, _ time: Duration) {
            let wait = limiter.nextRequestDelay(count, at: time)
            steps.append("delay \(count) at \(time): \(wait.map { "\($0)" } ?? "never")")
        }
        take(500, .zero)
        take(20, .zero)
        delay(20, .zero)  // ceil(20 × 1000 / 500) = 40 ms
        take(20, .milliseconds(39))  // floor(39 × 500 / 1000) = 19 tokens: one short
        delay(20, .milliseconds(39))  // ceil(1 × 1000 / 500) = 2 ms
        take(20, .milliseconds(41))
        delay(1, .seconds(60))  // a long pause fills the bucket to the capacity only
        take(500, .seconds(300))  // from minute 5 the capacity is 750
        take(750, .seconds(302))
        take(751, .seconds(310))
        delay(751, .seconds(310))  // more than the capacity: never
        #expect(
            steps == [
                "take 500 at 0.0 seconds: true, 0 left",
                "take 20 at 0.0 seconds: false, 0 left",
                "delay 20 at 0.0 seconds: 0.04 seconds",
                "take 20 at 0.039 seconds: false, 19 left",
                "delay 20 at 0.039 seconds: 0.002 seconds",
                "take 20 at 0.041 seconds: true, 0 left",
                "delay 1 at 60.0 seconds: 0.0 seconds",
                "take 500 at 300.0 seconds: true, 250 left",
                "take 750 at 302.0 seconds: true, 0 left",
                "take 751 at 310.0 seconds: false, 750 left",
                "delay 751 at 310.0 seconds: never",
            ])
    }

    /// The 10-minute figures: 10,000 writes at the default throttle take at least 19 s ((10,000 − 500) / 500), the
    /// first 500 at once.
    @Test func tenThousandWritesNeedNineteenSecondsAtTheStartRate() {
        var limiter = RateLimiter.rampUp()
        var time = Duration.zero
        var sent = 0
        while sent < 10_000 {
            if limiter.tryMakeRequest(20, at: time) {
                sent += 20
            } else if let delay = limiter.nextRequestDelay(20, at: time) {
                time += delay
            }
        }
        #expect(time == .seconds(19))
    }
}
