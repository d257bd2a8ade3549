import FirestoreTestSupport
import Foundation
import Testing

/// The tool's usage errors and dry run: no emulator involved.
@Suite(.timeLimit(.minutes(2))) struct CLIUsageTests {
    @Test func dryRunPrintsTheRequestAndSendsNothing() async throws {
        let result = try await CLIProcess.run(
            [
                "query", "fruits", "--emulator", "127.0.0.1:1", "--project", "demo-p",
                "--where", "isFavourite == true", "--where", "kcal >= 50.5", "--order-by", "name:desc", "--limit", "10",
            ] + ["--dry-run"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout == #"{"body":{"structuredQuery":{"from":[{"collectionId":"fruits"}],"limit":10,"#
                + #""orderBy":[{"direction":"DESCENDING","field":{"fieldPath":"name"}}],"where":{"compositeFilter":"#
                + #"{"filters":[{"fieldFilter":{"field":{"fieldPath":"isFavourite"},"op":"EQUAL","value":{"booleanValue":true}}},"#
                + #"{"fieldFilter":{"field":{"fieldPath":"kcal"},"op":"GREATER_THAN_OR_EQUAL","value":{"doubleValue":50.5}}}],"#
                + #""op":"AND"}}}},"method":"POST","path":"/v1/projects/demo-p/databases/(default)/documents:runQuery"}"#
                + "\n")
    }

    @Test func singleFilterIsBareAndIntegersStayIntegers() async throws {
        let result = try await CLIProcess.run([
            "query", "a/b/c", "--project", "demo-p", "--where", "n in [1, 2.0, \"3\"]", "--dry-run",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout == #"{"body":{"structuredQuery":{"from":[{"collectionId":"c"}],"where":{"fieldFilter":"#
                + #"{"field":{"fieldPath":"n"},"op":"IN","value":{"arrayValue":{"values":[{"integerValue":"1"},"#
                + #"{"doubleValue":2.0},{"stringValue":"3"}]}}}}}},"method":"POST","#
                + #""path":"/v1/projects/demo-p/databases/(default)/documents/a/b:runQuery"}"#
                + "\n")
    }

    @Test(arguments: [
        (["watch"], "error: watch needs exactly one COLLECTION_PATH"),
        (
            ["watch", "fruits", "--emulator", "h:1", "--where", "a ~ 1"],
            "error: --where \"a ~ 1\": unknown operator \"~\""
        ),
        (
            ["watch", "fruits", "--emulator", "h:1", "--where", "a == {"],
            "error: --where \"a == {\": VALUE is not JSON"
        ),
        (["watch", "fruits", "--emulator", "h:1", "--interval", "abc"], "error: --interval \"abc\": expected seconds"),
        (
            ["watch", "fruits", "--emulator", "h:1", "--count", "0"],
            "error: --count \"0\": expected a whole number above 0"
        ),
        (
            ["watch", "fruits", "--emulator", "h:1", "--format", "xml"],
            "error: --format \"xml\": expected text or jsonl"
        ),
        (["watch", "fruits", "--bogus"], "error: unknown option --bogus"),
        (["query", "fruits/apple", "--dry-run"], "error: \"fruits/apple\" is not a collection path"),
        (["query", "fruits", "--limit", "-1", "--dry-run"], "error: --limit \"-1\": expected a whole number"),
        (["get", "fruits", "--emulator", "h:1"], "error: \"fruits\" is not a document path"),
        (["frobnicate"], "error: unknown command \"frobnicate\""),
        (
            ["--project", "p", "get", "c/d"],
            "error: --project comes before the command: options follow it (firestore-feed COMMAND ... --project)"
        ),
        (
            ["query", "c", "--dry-run", "--order-by", "name:descending"],
            "error: --order-by \"name:descending\": use FIELD, FIELD:asc or FIELD:desc"
        ),
        (
            ["query", "c", "--dry-run", "--order-by", "name desc"],
            "error: --order-by \"name desc\": use FIELD, FIELD:asc or FIELD:desc"
        ),
        (
            ["query", "c", "--dry-run", "--where", "name==1"],
            "error: --where \"name==1\": expected 'FIELD OP VALUE' with spaces around OP"
        ),
        (
            ["query", "c", "--dry-run", "--where", "name == Apple"],
            "error: --where \"name == Apple\": VALUE is not JSON (invalid JSON at byte 0: unexpected character); a string needs JSON quotes: '\"Apple\"'"
        ),
        (
            ["query", "c", "--dry-run", "--where", "n == 99999999999999999999"],
            "error: --where \"n == 99999999999999999999\": the integer 99999999999999999999 does not fit in 64 bits"
        ),
        (["query", "c", "--project", "Bad Project!", "--emulator", "127.0.0.1:1"], "error: invalid project ID"),
        (
            ["get", "c/d", "--emulator", "127.0.0.1:99999"],
            "error: --emulator \"127.0.0.1:99999\": expected HOST, HOST:PORT or http://HOST:PORT (e.g. 127.0.0.1:8080)"
        ),
        (["watch", "c", "--emulator", "h:1", "--interval", "0x10"], "error: --interval \"0x10\": expected seconds"),
        (["help", "nope"], "error: unknown command \"nope\""),
        (["--version", "extra"], "error: --version takes no arguments, got \"extra\""),
    ])
    func usageErrorsExitTwoWithOneLineAndAHint(arguments: [String], message: String) async throws {
        let result = try await CLIProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(message), "stderr: \(result.stderr)")
        // One line, then where the help is (issue 17: not 30 lines of help).
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        let command = ["frobnicate", "--project", "help", "--version"].contains(arguments[0]) ? "" : " " + arguments[0]
        #expect(lines.count == 3 && lines[1] == "see 'firestore-feed help\(command)'" && lines[2] == "", "\(lines)")
    }

    /// A malformed `--where` clause of 100,008 characters (an argument of Linux's 128 KiB at most): the error line
    /// quotes its first 80 characters and its VALUE's first 80, not the whole clause twice.
    @Test func aLongWhereClauseIsQuotedShort() async throws {
        let result = try await CLIProcess.run([
            "query", "c", "--dry-run", "--where", "name == " + String(repeating: "a", count: 100_000),
        ])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "error: --where \"name == " + String(repeating: "a", count: 72) + "…\" (99928 more characters): "
                + "VALUE is not JSON (invalid JSON at byte 0: unexpected character); a string needs JSON quotes: '\""
                + String(repeating: "a", count: 80) + "…\"' (99920 more characters)\n"
                + "see 'firestore-feed help query'\n")
    }

    @Test func helpCommandAndVersion() async throws {
        let help = try await CLIProcess.run(["help", "count"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("USAGE: firestore-feed count COLLECTION_PATH [options]\n"))
        let version = try await CLIProcess.run(["--version"])
        #expect(version.stdout == "firestore-feed 0.1.0\n")
    }

    @Test func helpIsPrintedOnRequest() async throws {
        let result = try await CLIProcess.run(["watch", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("USAGE: firestore-feed watch COLLECTION_PATH [options]\n"))
        #expect(result.stdout.contains("--where 'FIELD OP VALUE'"))
    }
}
