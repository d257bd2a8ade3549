import FirestoreREST

/// A document or collection path given on the command line (`fruits/apple`, `fruits`), checked before anything
/// is sent.
enum PathArgument {
    /// Checks that `path` is a document path (or, with `collection`, a collection path).
    /// - Throws: ``ValidationError`` naming the path and what it should be.
    static func check(_ path: String, collection: Bool) throws(ValidationError) {
        do throws(FirestoreError) {
            let parsed = try ResourcePath(path)
            if collection, !parsed.isCollection {
                throw FirestoreError.invalidArgument(
                    "\"\(path)\" is not a collection path (it needs an odd number of segments)")
            }
            if !collection, !parsed.isDocument {
                throw FirestoreError.invalidArgument(
                    "\"\(path)\" is not a document path (it needs an even number of segments)")
            }
        } catch {
            throw ValidationError(error.message)
        }
    }
}
