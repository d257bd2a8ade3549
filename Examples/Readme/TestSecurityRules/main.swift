import FirestoreREST

let rules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        match /users/{user} {
          allow read, write: if request.auth.uid == user || request.auth.token.get('admin', false);
        }
      }
    }
    """
let admin = try FirestoreEmulatorAdmin.fromEnvironment(projectID: "demo-rules")   // or (host:projectID:)
try await admin.loadFirestoreRules(rules)
try await admin.withSecurityRulesDisabled { owner in try await owner.document("users/bob").setData(["n": 1]) }

let alice = try admin.authenticatedContext(uid: "alice")                       // request.auth.uid == "alice"
try await alice.document("users/alice").setData(["n": 1])
do { _ = try await alice.document("users/bob").getDocument() } catch let error as FirestoreError {
    print(error)            // permission-denied (HTTP 403): false for 'get' @ L5
}
let root = try admin.authenticatedContext(uid: "root", claims: ["admin": true])   // request.auth.token.admin
print(try await root.document("users/bob").getDocument().data() ?? [:])          // ["n": 1]
let nobody = admin.unauthenticatedContext()                                    // request.auth == null
print((try? await nobody.document("users/bob").getDocument()) == nil)          // true: denied
try await admin.clearFirestore()            // every document of demo-rules; other projects and the rules stay
