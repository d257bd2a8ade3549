import Foundation

// FirestoreSoak: a change feed through Scripts/fault-proxy for many polls while the watched collection is
// written to; prints the figures and exits 0 when the feed stayed true (see SoakOptions.usage).

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(SoakOptions.usage)
    exit(0)
}
let options: SoakOptions
do {
    options = try SoakOptions(arguments: arguments)
} catch {
    FileHandle.standardError.write(Data("error: \(error.message)\n\(SoakOptions.usage)\n".utf8))
    exit(2)
}
print("soak: \(options.polls) polls, \(options.documents) documents, project \(options.project), "
    + "feed via \(options.proxy), writes to \(options.emulator)")
do {
    let figures = try await SoakRun.run(options)
    let failures = figures.failures(requiredPolls: options.polls)
    for line in figures.lines() { print(line) }
    for failure in failures { print("soak: FAILED: \(failure)") }
    print(figures.json(passed: failures.isEmpty))
    print(failures.isEmpty ? "soak: PASS" : "soak: FAIL")
    exit(failures.isEmpty ? 0 : 1)
} catch {
    print("soak: FAILED: \(error)")
    exit(1)
}
