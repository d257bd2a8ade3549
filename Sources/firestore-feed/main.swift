import FirestoreFeedCLI

// The `firestore-feed` tool: everything it does lives in the FirestoreFeedCLI library. The process is prepared
// before the first `await` (closed standard descriptors keep their numbers, SIGQUIT ends the tool), and the
// arguments are read as bytes: CommandLine.arguments has already replaced invalid UTF-8.
FirestoreFeedTool.prepareProcess()
await FirestoreFeedTool.main(rawArguments: RawArguments.process())
