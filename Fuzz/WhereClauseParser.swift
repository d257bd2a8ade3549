import Foundation

// fuzz-modules: FirestoreWire FirestoreREST
// fuzz-sources: Sources/FirestoreFeedCLI/Parsing/WhereClause.swift Sources/FirestoreFeedCLI/Parsing/FieldPathArgument.swift Sources/FirestoreFeedCLI/Parsing/SecondsArgument.swift
// fuzz-seeds: where
@testable import FirestoreREST

// Fuzz target WhereClauseParser: the CLI's `--where 'FIELD OP VALUE'` text -> `WhereClause(parsing:)`
// (the CLI library's parsers, compiled in from Sources/FirestoreFeedCLI/Parsing), plus the `--select` splitter,
// the `--order-by` quoting check (FieldPathArgument) and the seconds parser (SecondsArgument).
//
// Checks, besides "no crash, no leak, no hang":
// - a parsed clause's field path and operator are the ones written: the clause parses again from the
//   field's quoted form, the operator's symbol and the original VALUE text;
// - an integer literal in VALUE never silently becomes a double (the CLI promises integerValue).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWhereClause(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let text = fuzzText(data, size) else { return 0 }
    _ = FieldPathArgument.splitFields(text)
    _ = FieldPathArgument.hasUnquoted(in: text, where: { $0 == ":" })
    _ = SecondsArgument.seconds(text)
    guard let clause = try? WhereClause(parsing: text) else { return 0 }
    // Rebuild FIELD OP VALUE from the parsed parts, keeping VALUE's own text (the part after OP).
    let field = clause.field.isDocumentID ? "__name__" : clause.field.description
    if let valueText = valueText(of: text) {
        let again = try? WhereClause(parsing: field + " " + clause.op.symbol + " " + valueText)
        fuzzCheck(again == clause, "\(text) does not parse again as \(field) \(clause.op.symbol) \(valueText)")
    }
    if case .integer = clause.value {
    } else if let json = try? JSONValue.parse(valueText(of: text) ?? ""), case .integer = json {
        fuzzCheck(false, "\(text): integer literal became \(clause.value.typeName)")
    }
    return 0
}

/// The VALUE part of `FIELD OP VALUE`: the text after the second run of white space outside backticks (read
/// by Unicode scalars, as the parser does).
private func valueText(of text: String) -> String? {
    let scalars = Array(text.unicodeScalars)
    var index = 0
    func skipSpaces() { while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 } }
    func skipToken() {
        var inBackticks = false
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "`" { inBackticks.toggle() }
            if scalar == "\\", inBackticks, index + 1 < scalars.count {
                index += 2
                continue
            }
            if scalar.properties.isWhitespace, !inBackticks { break }
            index += 1
        }
    }
    skipSpaces()
    skipToken()
    skipSpaces()
    skipToken()
    skipSpaces()
    return index < scalars.count ? String(String.UnicodeScalarView(scalars[index...])) : nil
}
