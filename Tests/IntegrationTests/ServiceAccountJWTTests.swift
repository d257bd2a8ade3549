import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The RS256 JWT of a service-account key, checked outside the library: a throwaway RSA key made by the
/// `openssl` tool signs the token in the library (through `COpenSSL`), and `openssl dgst -verify` checks the
/// signature with the public key. Header and claims are compared byte for byte (`firestore-rest.md` §2.4).
@Suite("Service-account JWT", .timeLimit(.minutes(2)))
struct ServiceAccountJWTTests {
    /// 2026-01-01T00:00:00Z.
    static let issuedAt = Date(timeIntervalSince1970: 1_767_225_600)

    /// The three parts of a compact JWT, the first two decoded.
    struct Parts {
        let header: String
        let claims: String
        let signingInput: String
        let signature: Data
    }

    static func split(_ jwt: String) throws -> Parts {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let header = try #require(JSONWebToken.decodeBase64URL(parts[0]))
        let claims = try #require(JSONWebToken.decodeBase64URL(parts[1]))
        let signature = try #require(JSONWebToken.decodeBase64URL(parts[2]))
        #expect(!jwt.contains("=") && !jwt.contains("+") && !jwt.contains("/"))
        return Parts(
            header: String(decoding: header, as: UTF8.self), claims: String(decoding: claims, as: UTF8.self),
            signingInput: parts[0] + "." + parts[1], signature: signature)
    }

    /// `openssl dgst -sha256 -verify public.pem -signature sig.bin input.txt`.
    static func verify(_ signingInput: String, _ signature: Data, in folder: URL) async throws -> OpenSSLTool.Result {
        try Data(signingInput.utf8).write(to: folder.appendingPathComponent("input.txt"))
        try signature.write(to: folder.appendingPathComponent("sig.bin"))
        return try await OpenSSLTool.run(
            ["dgst", "-sha256", "-verify", "public.pem", "-signature", "sig.bin", "input.txt"], in: folder)
    }

    @Test func tokenExchangeJWTVerifiesWithThePublicKey() async throws {
        let folder = try OpenSSLTool.temporaryFolder("jwt")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        let key = try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(in: folder))
        #expect(key.privateKey.bits == 2048)
        let credentials = ServiceAccountCredentials(key: key)
        let jwt = try credentials.signedJWT(issuedAt: Self.issuedAt)
        let parts = try Self.split(jwt)
        #expect(parts.header == #"{"alg":"RS256","kid":"test-key-1","typ":"JWT"}"#)
        #expect(
            parts.claims
                == #"{"aud":"https://oauth2.googleapis.com/token","exp":1767229200,"iat":1767225600,"#
                + #""iss":"feed-test@demo-sa-project.iam.gserviceaccount.com","#
                + #""scope":"https://www.googleapis.com/auth/datastore"}"#)
        #expect(parts.signature.count == 256)

        let verified = try await Self.verify(parts.signingInput, parts.signature, in: folder)
        #expect(verified.stdout == "Verified OK\n")
        #expect(verified.status == 0)

        // The check can fail: a changed claim does not verify.
        let tampered = try await Self.verify(
            parts.signingInput.replacingOccurrences(of: "e", with: "f"), parts.signature, in: folder)
        #expect(tampered.status == 1)
        #expect(tampered.stdout == "Verification failure\n")
    }

    @Test func selfSignedJWTHasFirestoreAsAudience() async throws {
        let folder = try OpenSSLTool.temporaryFolder("jwt-self")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        let key = try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(in: folder, keyID: nil))
        let credentials = ServiceAccountCredentials(key: key, mode: .selfSignedJWT())
        let parts = try Self.split(try credentials.signedJWT(issuedAt: Self.issuedAt))
        #expect(parts.header == #"{"alg":"RS256","typ":"JWT"}"#)
        #expect(
            parts.claims
                == #"{"aud":"https://firestore.googleapis.com/","exp":1767229200,"iat":1767225600,"#
                + #""iss":"feed-test@demo-sa-project.iam.gserviceaccount.com","#
                + #""sub":"feed-test@demo-sa-project.iam.gserviceaccount.com"}"#)
        let verified = try await Self.verify(parts.signingInput, parts.signature, in: folder)
        #expect(verified.stdout == "Verified OK\n")
    }

    @Test func aPKCS1KeySignsTheSame() async throws {
        let folder = try OpenSSLTool.temporaryFolder("jwt-pkcs1")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        let pem = try String(contentsOf: folder.appendingPathComponent("key-pkcs1.pem"), encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        let key = try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(keyFile: "key-pkcs1.pem", in: folder))
        let parts = try Self.split(try ServiceAccountCredentials(key: key).signedJWT(issuedAt: Self.issuedAt))
        // RSASSA-PKCS1-v1_5 is deterministic: the PKCS#8 and PKCS#1 forms of one key give the same signature.
        let pkcs8 = try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(in: folder))
        let other = try Self.split(try ServiceAccountCredentials(key: pkcs8).signedJWT(issuedAt: Self.issuedAt))
        #expect(parts.signature == other.signature)
        #expect(try await Self.verify(parts.signingInput, parts.signature, in: folder).stdout == "Verified OK\n")
    }

    @Test func anEncryptedKeyFailsWithoutPrompting() async throws {
        let folder = try OpenSSLTool.temporaryFolder("jwt-enc")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        try FileManager.default.moveItem(
            at: folder.appendingPathComponent("key.pem"), to: folder.appendingPathComponent("plain.pem"))
        try await OpenSSLTool.require(
            ["pkey", "-in", "plain.pem", "-aes256", "-passout", "pass:hunter2", "-out", "key.pem"], in: folder)
        let pem = try String(contentsOf: folder.appendingPathComponent("key.pem"), encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        let error = #expect(throws: FirestoreError.self) {
            try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(in: folder), source: "enc.json")
        }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message.hasPrefix(
                #"credentials enc.json: "private_key": private key is not a readable PEM private key (error:"#) == true)
        #expect(error?.message.contains("ENCRYPTED") == false)
    }

    @Test func anECKeyIsRefused() async throws {
        let folder = try OpenSSLTool.temporaryFolder("jwt-ec")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.require(
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"], in: folder)
        let error = #expect(throws: FirestoreError.self) {
            try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(in: folder), source: "ec.json")
        }
        #expect(
            error?.message == #"credentials ec.json: "private_key": private key is not an RSA key (RS256 needs RSA)"#)
    }

    @Test func theKeyIsNeverDescribed() async throws {
        let folder = try OpenSSLTool.temporaryFolder("jwt-desc")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        let credentials = ServiceAccountCredentials(
            key: try ServiceAccountKey(json: OpenSSLTool.serviceAccountJSON(in: folder)))
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in [
            String(describing: credentials), String(reflecting: credentials), dumped,
            String(describing: credentials.key),
        ] {
            #expect(!text.contains("PRIVATE KEY"), "\(text)")
            #expect(!text.contains("MII"), "\(text)")
        }
        #expect(
            String(describing: credentials)
                == "ServiceAccountCredentials(client_email: feed-test@demo-sa-project.iam.gserviceaccount.com, "
                + "mode: tokenExchange, private_key: <redacted>)")
    }
}
