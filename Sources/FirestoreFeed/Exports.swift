/// `import FirestoreFeed` alone is enough to watch a query: the client (`FirestoreREST`, and the wire types it
/// re-exports) comes with it, as one import does in the Firebase SDKs.
@_exported import FirestoreREST
