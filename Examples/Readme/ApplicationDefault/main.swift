import FirestoreREST

// FIRESTORE_EMULATOR_HOST set: the emulator with `Bearer owner` (the project: projectID: or GOOGLE_CLOUD_PROJECT).
// Otherwise, in this order:
// 1. GOOGLE_APPLICATION_CREDENTIALS=/path/key.json (a service-account key or an authorized_user file)
// 2. ~/.config/gcloud/application_default_credentials.json (`gcloud auth application-default login`)
// 3. the metadata server (Compute Engine, Cloud Run, GKE; GCE_METADATA_HOST overrides its host)
do {
    let db = try await Firestore.applicationDefault()   // project: argument, GOOGLE_CLOUD_PROJECT, key, metadata
    let apple = try await db.document("fruits/apple").getDocument()
    print("apple exists:", apple.exists)
} catch {
    print("error:", error)   // failed-precondition: no project ID for the emulator at ...: pass projectID or set ...
}
