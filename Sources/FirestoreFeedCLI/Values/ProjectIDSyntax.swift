/// The syntax of a project ID named on the command line, checked before anything is sent (the emulator answers a
/// project ID it cannot take with a bare `500 UNKNOWN`, production with `not-found` or `permission-denied`).
///
/// Google Cloud project IDs are 6 to 30 lower-case letters, digits and hyphens, starting with a letter and not
/// ending with a hyphen; a domain-scoped project (`example.com:my-app`) has that after its domain. The emulator
/// takes lower-case letters, digits and hyphens of any length (`demo-*` IDs are the emulator's demo projects,
/// which need no real project).
package enum ProjectIDSyntax {
    /// What is wrong with `id`, or `nil` when it is well formed for production (`production`) or the emulator.
    /// `source` names where the ID came from (`--project`, `GOOGLE_CLOUD_PROJECT`).
    package static func problem(_ id: String, source: String, production: Bool) -> String? {
        var name = Substring(id)
        if let colon = id.lastIndex(of: ":") {
            let domain = id[..<colon]
            guard !domain.isEmpty, domain.allSatisfy({ isLowerAlphanumeric($0) || $0 == "-" || $0 == "." }) else {
                return message(id, source: source, production: production)
            }
            name = id[id.index(after: colon)...]
        }
        let characters = !name.isEmpty && name.allSatisfy { isLowerAlphanumeric($0) || $0 == "-" }
        let shape =
            !production
            || ((6...30).contains(name.count) && name.first.map(isLowerLetter) == true && name.last != "-")
        return characters && shape ? nil : message(id, source: source, production: production)
    }

    /// `invalid project ID "My_Project" (from --project): ... (did you mean "my-project"?)`.
    private static func message(_ id: String, source: String, production: Bool) -> String {
        let rule =
            production
            ? "a Firestore project ID is 6 to 30 lower-case letters, digits and hyphens, starting with a letter"
            : "the emulator takes project IDs of lower-case letters, digits and hyphens, such as demo-fruits"
        // Lower-cased, each run of other characters one hyphen, none at either end: "Bad Project!" -> "bad-project".
        let words = id.lowercased().split { !(isLowerAlphanumeric($0) || $0 == ":") }
        let fixed = words.joined(separator: "-")
        let suggestion = fixed != id && problem(fixed, source: source, production: production) == nil
        return "invalid project ID \"\(id)\" (from \(source)): \(rule)"
            + (suggestion ? " (did you mean \"\(fixed)\"?)" : "")
    }

    private static func isLowerLetter(_ character: Character) -> Bool {
        character.isASCII && character.isLowercase
    }

    private static func isLowerAlphanumeric(_ character: Character) -> Bool {
        character.isASCII && (character.isLowercase || character.isNumber)
    }
}
