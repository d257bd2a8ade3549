import FirestoreFeedCLI
import Testing

/// The progress line of import and export (shown on stderr only when it is a terminal).
@Suite(.timeLimit(.minutes(2))) struct ProgressMeterTests {
    @Test func theLineSaysDoneTotalRateAndElapsed() {
        #expect(
            ProgressMeter.line("import", done: 1500, total: 10000, elapsed: .milliseconds(625))
                == "import: 1500 of 10000 documents, 2400/s, 0.6 s")
        #expect(
            ProgressMeter.line("export", done: 3, total: nil, elapsed: .seconds(2)) == "export: 3 documents, 2/s, 2.0 s"
        )
        #expect(ProgressMeter.line("export", done: 0, total: nil, elapsed: .zero) == "export: 0 documents, 0/s, 0.0 s")
    }
}
