import FirestoreFeedCLI
import Foundation

// The recorder behind Scripts/record: `RecordRecordings SCENARIO FILE [--emulator HOST:PORT]`.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") {
    await Console.output(RecordCommand.help)
    exit(0)
}
do {
    try await RecordCommand.main(arguments)
    await FirestoreFeedTool.finish(0)
} catch {
    await FirestoreFeedTool.fail(error, help: .text(RecordCommand.help))
}
