import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `--protocol rest|grpc|automatic` on the commands that talk to Firestore: the same writes and reads print the same
/// output over each wire.
@Suite(.timeLimit(.minutes(2))) struct CLIProtocolLiveTests {
    @Test func setGetQueryAndCountPrintTheSameOverEveryProtocol() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-protocol")
        let connection = ["--emulator", host, "--project", project]
        for (id, name) in [("a", "Apple"), ("b", "Banana")] {
            let set = try await CLIProcess.run(
                ["set", "fruits/\(id)", #"{"name":"\#(name)"}"#, "--protocol", "grpc"] + connection)
            #expect(set.status == 0, "stderr: \(set.stderr)")
        }
        var outputs: [String: [String]] = [:]
        for wire in ["rest", "grpc", "automatic"] {
            var printed: [String] = []
            for command in [
                ["query", "fruits", "--order-by", "name"], ["get", "fruits/a"],
                ["count", "fruits"],
            ] {
                let result = try await CLIProcess.run(command + ["--protocol", wire] + connection)
                #expect(result.status == 0, "\(wire) \(command): \(result.stderr)")
                printed.append(result.stdout)
            }
            outputs[wire] = printed
        }
        #expect(outputs["grpc"] == outputs["rest"])
        #expect(outputs["automatic"] == outputs["rest"])
        #expect(outputs["grpc"]?[2] == "2\n")
        #expect(outputs["grpc"]?[0].contains(#""name":"Banana""#) == true)
    }

    @Test func anUnknownProtocolIsAUsageError() async throws {
        let result = try await CLIProcess.run(["query", "c", "--protocol", "soap", "--emulator", "127.0.0.1:1"])
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"error: --protocol "soap": expected rest, grpc or automatic"#))
    }
}
