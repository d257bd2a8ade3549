import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The CLI's cursor, projection, offset, limit-to-last and collection-group options, and `count`.
@Suite(.timeLimit(.minutes(2))) struct CLIQueryOptionTests {
    @Test func dryRunEncodesEveryQueryOption() async throws {
        let result = try await CLIProcess.run([
            "query", "scores", "--project", "demo-p", "--dry-run", "--order-by", "score", "--order-by", "__name__",
            "--start-after", #"2,"p4""#, "--end-at", "4", "--select", "score,`a.b`", "--offset", "1",
            "--limit-to-last", "3",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            try JSONValue.parse(result.stdout)
                == JSONValue.parse(
                    """
                    {"method":"POST","path":"/v1/projects/demo-p/databases/(default)/documents:runQuery",
                     "body":{"structuredQuery":{"from":[{"collectionId":"scores"}],
                       "orderBy":[{"field":{"fieldPath":"score"},"direction":"DESCENDING"},
                                  {"field":{"fieldPath":"__name__"},"direction":"DESCENDING"}],
                       "startAt":{"values":[{"integerValue":"4"}],"before":true},
                       "endAt":{"values":[{"integerValue":"2"},
                                          {"referenceValue":"projects/demo-p/databases/(default)/documents/scores/p4"}],
                                "before":true},
                       "select":{"fields":[{"fieldPath":"score"},{"fieldPath":"`a.b`"}]},
                       "offset":1,"limit":3}}}
                    """))
    }

    /// With `--protocol grpc` the dry run prints the RunQuery call: its request in proto3 JSON and the protobuf bytes
    /// sent, which Google's own protobuf runtime (`google-cloud-firestore`'s `RunQueryRequest`) decodes to that JSON.
    @Test func grpcDryRunPrintsTheRunQueryRequestAndItsProtobuf() async throws {
        let result = try await CLIProcess.run([
            "query", "scores", "--project", "demo-p", "--dry-run", "--protocol", "grpc", "--where", "score >= 2",
            "--order-by", "score", "--start-after", "2", "--select", "score", "--offset", "1", "--limit", "3",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let printed = try JSONValue.parse(result.stdout)
        let body = try JSONValue.parse(
            """
            {"parent":"projects/demo-p/databases/(default)/documents",
             "structuredQuery":{"from":[{"collectionId":"scores"}],
               "where":{"fieldFilter":{"field":{"fieldPath":"score"},"op":"GREATER_THAN_OR_EQUAL",
                                       "value":{"integerValue":"2"}}},
               "orderBy":[{"field":{"fieldPath":"score"},"direction":"ASCENDING"}],
               "startAt":{"values":[{"integerValue":"2"}]},
               "select":{"fields":[{"fieldPath":"score"}]},
               "offset":1,"limit":3}}
            """)
        #expect(printed["method"] == "POST")
        #expect(printed["path"] == "/google.firestore.v1.Firestore/RunQuery")
        #expect(printed["body"] == body)
        guard case .string(let protobuf)? = printed["protobuf"] else {
            Issue.record("no protobuf in \(result.stdout)")
            return
        }
        let decoded = try await CLIProcess.run(
            [
                "-c",
                """
                import base64, sys
                from google.cloud.firestore_v1.types import RunQueryRequest
                from google.protobuf.json_format import MessageToJson
                message = RunQueryRequest.pb().FromString(base64.b64decode(sys.argv[1]))
                print(MessageToJson(message, indent=None))
                """,
                protobuf,
            ], executable: URL(fileURLWithPath: try ScriptedGRPCServer.python()))
        #expect(decoded.status == 0, "stderr: \(decoded.stderr)")
        #expect(try JSONValue.parse(decoded.stdout) == body)
    }

    @Test func collectionGroupDryRun() async throws {
        let result = try await CLIProcess.run([
            "query", "landmarks", "--collection-group", "--project", "demo-p", "--dry-run", "--select", "",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            try JSONValue.parse(result.stdout)
                == JSONValue.parse(
                    """
                    {"method":"POST","path":"/v1/projects/demo-p/databases/(default)/documents:runQuery",
                     "body":{"structuredQuery":{"from":[{"collectionId":"landmarks","allDescendants":true}],
                       "select":{"fields":[{"fieldPath":"__name__"}]}}}}
                    """))
    }

    @Test(arguments: [
        (["query", "c", "--dry-run", "--limit-to-last", "2"], "error: --limit-to-last needs at least one --order-by"),
        (
            ["query", "c", "--dry-run", "--limit", "1", "--limit-to-last", "2", "--order-by", "a"],
            "error: --limit and --limit-to-last cannot be combined"
        ),
        (["query", "c", "--dry-run", "--start-at", "1,"], "error: --start-at \"1,\": not comma-separated JSON values"),
        (
            ["query", "c", "--dry-run", "--order-by", "a", "--start-at", "1", "--start-after", "2"],
            "error: --start-at and --start-after cannot be combined"
        ),
        (
            ["query", "c", "--dry-run", "--start-at", "1"],
            "error: the start cursor with values needs at least one order(by:)"
        ),
        (["query", "c", "--dry-run", "--offset", "x"], "error: --offset \"x\": expected a whole number"),
        (["count"], "error: count needs exactly one COLLECTION_PATH"),
    ])
    func optionErrorsExitTwo(arguments: [String], message: String) async throws {
        let result = try await CLIProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message), "stderr: \(result.stderr)")
    }

    @Test func countPrintsTheNumberOfMatches() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-count")
        let db = try Firestore.emulator(host: host, projectID: project)
        for (id, group) in [("a", "x"), ("b", "x"), ("c", "y")] {
            try await db.collection("items").document(id).setData(["group": .string(group)])
        }
        let all = try await CLIProcess.run(["count", "items", "--emulator", host, "--project", project])
        #expect(all.status == 0, "stderr: \(all.stderr)")
        #expect(all.stdout == "3\n")
        let some = try await CLIProcess.run([
            "count", "items", "--emulator", host, "--project", project, "--where", #"group == "x""#,
        ])
        #expect(some.stdout == "2\n")
    }
}
