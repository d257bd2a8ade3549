internal import COpenSSL
import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An RSA private key loaded with OpenSSL (libcrypto), used to sign RS256 JSON Web Tokens.
///
/// Reads unencrypted PEM in both forms a service-account key can take: PKCS#8 (`-----BEGIN PRIVATE KEY-----`,
/// the service-account JSON format) and PKCS#1 (`-----BEGIN RSA PRIVATE KEY-----`), read with
/// OpenSSL's `PEM_read_bio_PrivateKey`; signing is RS256 (RFC 7518 §3.3) with `EVP_DigestSign`.
/// The key is immutable after loading and freed with the object, which makes sharing it between threads safe
/// (OpenSSL 3 allows concurrent signing with one `EVP_PKEY`, each signature using its own `EVP_MD_CTX`).
final class RSAPrivateKey: @unchecked Sendable, CustomStringConvertible {
    private let key: OpaquePointer

    /// Loads a key from PEM text.
    /// - Parameter pem: the PEM text (the JSON's `\n` escapes already decoded).
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming OpenSSL's reason (e.g.
    ///   `error:1E08010C:DECODER routines::unsupported`) when the text is not an unencrypted private key, or
    ///   when the key is not an RSA key. The message never contains the key.
    init(pem: String) throws(FirestoreError) {
        ERR_clear_error()
        var bytes = Array(pem.utf8)
        guard bytes.count < Int(Int32.max) else {
            throw .invalidArgument("private key PEM is too long (\(bytes.count) bytes)")
        }
        let loaded = bytes.withUnsafeMutableBytes { buffer in
            copenssl_read_private_key(buffer.baseAddress, Int32(buffer.count))
        }
        // Wipe our copy of the key text.
        for index in bytes.indices { bytes[index] = 0 }
        guard let loaded else {
            throw .invalidArgument("private key is not a readable PEM private key (\(Self.openSSLError()))")
        }
        guard copenssl_pkey_is_rsa(loaded) == 1 else {
            EVP_PKEY_free(loaded)
            throw .invalidArgument("private key is not an RSA key (RS256 needs RSA)")
        }
        key = loaded
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The key size in bits, e.g. 2048.
    var bits: Int {
        Int(EVP_PKEY_get_bits(key))
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `data` (256 bytes for a 2048-bit key).
    /// - Complexity: one RSA private-key operation, about 0.4 ms for 2048 bits (`openssl speed rsa2048`).
    /// - Throws: ``FirestoreError`` `.internal` naming OpenSSL's reason when signing fails.
    func signSHA256(_ data: Data) throws(FirestoreError) -> Data {
        ERR_clear_error()
        let signature: Data? = data.withUnsafeBytes { message in
            var length = 0
            guard copenssl_sign_sha256(key, message.baseAddress, message.count, nil, &length) == 1, length > 0
            else { return nil }
            var output = [UInt8](repeating: 0, count: length)
            let signed = output.withUnsafeMutableBufferPointer { buffer in
                copenssl_sign_sha256(key, message.baseAddress, message.count, buffer.baseAddress, &length)
            }
            guard signed == 1, length <= output.count else { return nil }
            return Data(output[0..<length])
        }
        guard let signature else {
            throw FirestoreError(code: .internal, message: "RS256 signing failed (\(Self.openSSLError()))")
        }
        return signature
    }

    /// Never shows the key.
    var description: String { "RSAPrivateKey(\(bits) bits, <redacted>)" }

    /// The oldest error on this thread's OpenSSL error queue as OpenSSL's text, then clears the queue.
    private static func openSSLError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no OpenSSL error reported" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
