import FirestoreREST

// A service-account key: an RS256 JWT signed with the system OpenSSL, exchanged at the key's token_uri
// (jwt-bearer grant) for an access token with the datastore scope.
let key = try ServiceAccountKey(contentsOfFile: "/secrets/firestore-sa.json")
let db = try Firestore(projectID: key.projectID ?? "my-project", credentials: ServiceAccountCredentials(key: key))

// The same key as a self-signed JWT (audience https://firestore.googleapis.com/): no token request at all.
let direct = ServiceAccountCredentials(key: key, mode: .selfSignedJWT())

// On Google Cloud: the workload's own service account from the metadata server.
let metadata = MetadataServerCredentials()
let project = try await metadata.projectID()

// A token from elsewhere (`gcloud auth print-access-token`); never refreshed.
let token = "ya29.a0..."
let fixed = StaticTokenCredentials(token: token)
