import FirestoreFeedCLI

// The `firestore-feed` tool: everything it does lives in the FirestoreFeedCLI library.
await FirestoreFeedTool.main(arguments: Array(CommandLine.arguments.dropFirst()))
