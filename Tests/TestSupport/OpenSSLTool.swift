import Foundation

/// Runs the `openssl` command-line tool, for tests that make throwaway keys and certificates and that check
/// signatures independently of the library's own OpenSSL calls.
package enum OpenSSLTool {
    package struct Result: Sendable {
        package let status: Int32
        package let stdout: String
        package let stderr: String
    }

    package struct Failure: Error, CustomStringConvertible {
        package let arguments: [String]
        package let result: Result
        package var description: String {
            "openssl \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)"
        }
    }

    /// Runs `openssl arguments` in `folder` and returns its exit status and output (the process is ended after
    /// 60 s; its output is read and its exit awaited on threads of their own).
    @discardableResult
    package static func run(_ arguments: [String], in folder: URL) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        async let stdout = CLIProcess.readToEnd(output.fileHandleForReading)
        async let stderr = CLIProcess.readToEnd(errors.fileHandleForReading)
        let status = await process.exitStatus(timeout: 60)
        return Result(
            status: status, stdout: String(decoding: await stdout, as: UTF8.self),
            stderr: String(decoding: await stderr, as: UTF8.self))
    }

    /// Runs `openssl arguments` and throws unless it exits 0.
    package static func require(_ arguments: [String], in folder: URL) async throws {
        let result = try await run(arguments, in: folder)
        guard result.status == 0 else { throw Failure(arguments: arguments, result: result) }
    }

    /// A fresh temporary folder; the caller removes it.
    package static func temporaryFolder(_ label: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A throwaway 2048-bit RSA key pair in `folder`: `key.pem` (PKCS#8, as in service-account JSON),
    /// `key-pkcs1.pem` (the same key as PKCS#1 `BEGIN RSA PRIVATE KEY`) and `public.pem`.
    ///
    /// The key is generated once per test run (``SharedKey``) and copied, since generating RSA keys is CPU-heavy
    /// and would slow down every test running at the same time.
    package static func makeRSAKey(in folder: URL) async throws {
        let source = try await SharedKey.shared.folder()
        for name in ["key.pem", "public.pem", "key-pkcs1.pem"] {
            try FileManager.default.copyItem(
                at: source.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
    }

    /// Generates the test run's RSA key pair the first time it is asked for.
    package actor SharedKey {
        package static let shared = SharedKey()
        private var generation: Task<URL, any Error>?

        package func folder() async throws -> URL {
            if let generation { return try await generation.value }
            let task = Task {
                let folder = try OpenSSLTool.temporaryFolder("shared-rsa-key")
                try await OpenSSLTool.require(
                    ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"], in: folder)
                try await OpenSSLTool.require(["pkey", "-in", "key.pem", "-pubout", "-out", "public.pem"], in: folder)
                try await OpenSSLTool.require(
                    ["rsa", "-in", "key.pem", "-traditional", "-out", "key-pkcs1.pem"], in: folder)
                return folder
            }
            generation = task
            return try await task.value
        }
    }

    /// A self-signed certificate for `127.0.0.1` (`cert.pem`, key `cert-key.pem`) in `folder`, valid one day.
    package static func makeSelfSignedCertificate(in folder: URL) async throws {
        try await require(
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "cert-key.pem", "-out", "cert.pem",
                "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ], in: folder)
    }

    /// A service-account key JSON for the PEM file `keyFile` in `folder`, with written-out identity members.
    package static func serviceAccountJSON(
        keyFile: String = "key.pem", in folder: URL, tokenURI: String = "https://oauth2.googleapis.com/token",
        keyID: String? = "test-key-1"
    ) throws -> Data {
        let pem = try String(contentsOf: folder.appendingPathComponent(keyFile), encoding: .utf8)
        var members: [String: Any] = [
            "type": "service_account", "project_id": "demo-sa-project",
            "client_email": "feed-test@demo-sa-project.iam.gserviceaccount.com", "client_id": "1234567890",
            "private_key": pem, "token_uri": tokenURI, "universe_domain": "googleapis.com",
        ]
        if let keyID { members["private_key_id"] = keyID }
        return try JSONSerialization.data(withJSONObject: members)
    }
}
