import Foundation

// FirestoreSoak: a change feed through Scripts/fault-proxy for many polls while the watched collection is
// written to; prints the figures and exits 0 when the feed stayed true (see SoakOptions.usage).

/// Runs the soak for the command line `arguments` and returns the exit status.
func soak(_ arguments: [String]) async -> Int32 {
    if arguments.contains("--help") || arguments.contains("-h") {
        print(SoakOptions.usage)
        return 0
    }
    let options: SoakOptions
    do {
        options = try SoakOptions(arguments: arguments)
    } catch {
        FileHandle.standardError.write(Data("error: \(error.message)\n\(SoakOptions.usage)\n".utf8))
        return 2
    }
    print(
        "soak: \(options.polls) polls, \(options.documents) documents, project \(options.project), "
            + "feed via \(options.proxy), writes to \(options.emulator)")
    do {
        let figures = try await SoakRun.run(options)
        let failures = figures.failures(requiredPolls: options.polls)
        for line in figures.lines() { print(line) }
        for failure in failures { print("soak: FAILED: \(failure)") }
        print(figures.json(passed: failures.isEmpty))
        print(failures.isEmpty ? "soak: PASS" : "soak: FAIL")
        return failures.isEmpty ? 0 : 1
    } catch {
        print("soak: FAILED: \(error)")
        return 1
    }
}

exit(await soak(Array(CommandLine.arguments.dropFirst())))
