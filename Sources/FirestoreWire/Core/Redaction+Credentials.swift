extension Redaction {
    /// The text that takes a credential's place.
    package static let placeholder = "<REDACTED>"

    /// Secrets shorter than this many bytes are not searched for by value (a short value, such as the emulator's
    /// `owner` token, would blank out ordinary words).
    package static let minimumKnownLength = 8

    /// `text` with every credential in it replaced by ``placeholder``: what any message built from a server's answer
    /// or from a request goes through before it can be shown (every ``FirestoreError/message`` does), so that
    /// neither the CLI nor a user's log prints a secret a server echoed back (issue 24).
    ///
    /// Replaced:
    /// - each of `known` (the credentials the request carried, ``CredentialNames/values(headers:query:body:)``) at
    ///   least ``minimumKnownLength`` bytes long, as it is and percent-encoded;
    /// - the value after a credential's name (``CredentialNames/standard``: `refresh_token=...`,
    ///   `"client_secret": "..."`, `Authorization: Bearer ...`; a scheme word stays);
    /// - the token after `Bearer ` (8 bytes or more);
    /// - credentials that carry their kind in their shape: a JSON Web Token (`eyJ...`, a signed assertion or ID
    ///   token, cut short too), a Google OAuth access token (`ya29.`), refresh token (`1//`), client secret
    ///   (`GOCSPX-`), API key (`AIza`), and a PEM private key block.
    ///
    /// Idempotent: a placeholder is never replaced again.
    /// - Complexity: O(n · (k + m)) for n bytes of text, k known secrets and m credential names.
    package static func text(_ text: String, known: some Sequence<String> = [String]()) -> String {
        var result = text
        let secrets = Set(known).filter { $0.utf8.count >= minimumKnownLength && $0 != placeholder }
        for secret in secrets.sorted(by: { $0.utf8.count > $1.utf8.count }) {
            for form in Set([secret, percentEncoded(secret)]) where result.contains(form) {
                result = result.replacing(form, with: placeholder)
            }
        }
        return CredentialScanner.redact(result)
    }

    /// `text` with every byte outside `A-Z a-z 0-9 - . _ ~` percent-encoded (how a form carries a secret).
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if CredentialScanner.isWordByte(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~") {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Finds credentials in text by the name before them or by their shape, for ``Redaction/text(_:known:)``.
enum CredentialScanner {
    /// The names whose values are credentials, lowercased UTF-8 (``CredentialNames/standard``'s headers and fields;
    /// its query parameter `key` is too common a word to match in prose), each with whether it is a header's.
    static let names: [(name: [UInt8], isHeader: Bool)] = {
        let standard = CredentialNames.standard
        return standard.headers.union(standard.fields).sorted().map { (Array($0.utf8), standard.headers.contains($0)) }
    }()

    /// Authorization schemes kept before the credential that follows them after a credential's name.
    static let schemes: Set<String> = ["bearer", "basic", "digest", "negotiate"]

    /// Prefixes of credentials that carry their kind in their shape, with how many token bytes must follow.
    static let shapes: [(prefix: [UInt8], minimumRest: Int)] = [
        (Array("ya29.".utf8), 10), (Array("1//".utf8), 10), (Array("GOCSPX-".utf8), 10), (Array("AIza".utf8), 30),
    ]

    static func redact(_ text: String) -> String {
        let input = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if let secret = secret(in: input, at: index) {
                output += input[index..<secret.lowerBound]
                output += Array(Redaction.placeholder.utf8)
                index = secret.upperBound
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return output.count == input.count && output == input ? text : String(decoding: output, as: UTF8.self)
    }

    /// The range of a credential that a match starting at `start` finds, or `nil`.
    /// A match starts a word (a PEM block may follow an escaped line break, `\n-----BEGIN`).
    static func secret(in input: [UInt8], at start: Int) -> Range<Int>? {
        if start > 0, isWordByte(input[start - 1]) { return privateKey(in: input, at: start) }
        return named(in: input, at: start) ?? bearer(in: input, at: start) ?? shaped(in: input, at: start)
            ?? privateKey(in: input, at: start)
    }

    /// The value after a credential's name: after `=` (a form, a query), a quoted value after `:` (JSON), and for a
    /// header's name any value after `:` (the name may close a quoted JSON key). An unquoted word after a field's
    /// name and `:` is prose (`"private_key": private key is not readable`), not a value.
    static func named(in input: [UInt8], at start: Int) -> Range<Int>? {
        guard let (name, isHeader) = names.first(where: { matches(input, at: start, $0.name, ignoringCase: true) })
        else { return nil }
        var index = start + name.count
        if index < input.count, isWordByte(input[index]) { return nil }
        if matches(input, at: index, Array("\\\"".utf8), ignoringCase: false) {
            index += 2
        } else if index < input.count, input[index] == UInt8(ascii: "\"") || input[index] == UInt8(ascii: "'") {
            index += 1
        }
        index = skipSpaces(input, from: index)
        guard index < input.count, input[index] == UInt8(ascii: "=") || input[index] == UInt8(ascii: ":") else {
            return nil
        }
        let isColon = input[index] == UInt8(ascii: ":")
        index = skipSpaces(input, from: index + 1)
        let value: Range<Int>
        if matches(input, at: index, Array("\\\"".utf8), ignoringCase: false) {
            let end = find(Array("\\\"".utf8), in: input, from: index + 2) ?? input.count
            value = (index + 2)..<end
        } else if index < input.count, input[index] == UInt8(ascii: "\"") || input[index] == UInt8(ascii: "'") {
            value = (index + 1)..<closingQuote(input[index], in: input, from: index + 1)
        } else {
            guard isHeader || !isColon else { return nil }
            var valueStart = index
            let word = input[index...].prefix { isLetter($0) }
            let afterWord = index + word.count
            if schemes.contains(String(decoding: word, as: UTF8.self).lowercased()), afterWord < input.count,
                input[afterWord] == UInt8(ascii: " ")
            {
                valueStart = skipSpaces(input, from: afterWord)
            }
            value = valueStart..<(valueStart + input[valueStart...].prefix { isValueByte($0) }.count)
        }
        guard !value.isEmpty, Array(input[value]) != Array(Redaction.placeholder.utf8) else { return nil }
        return value
    }

    /// The token (8 bytes or more of RFC 6750's `b64token`) after `Bearer ` (any case).
    static func bearer(in input: [UInt8], at start: Int) -> Range<Int>? {
        guard matches(input, at: start, Array("bearer ".utf8), ignoringCase: true) else { return nil }
        let tokenStart = skipSpaces(input, from: start + 7)
        let length = input[tokenStart...].prefix { isWordByte($0) || "._~+/=".utf8.contains($0) }.count
        return length >= 8 ? tokenStart..<(tokenStart + length) : nil
    }

    /// A JSON Web Token (`eyJ`, 10 or more base64url bytes, a dot: the rest of its run of `A-Z a-z 0-9 - _ .`) or a
    /// Google credential of a known prefix.
    static func shaped(in input: [UInt8], at start: Int) -> Range<Int>? {
        if matches(input, at: start, Array("eyJ".utf8), ignoringCase: false) {
            let head = input[(start + 3)...].prefix { isWordByte($0) }.count
            guard head >= 10, start + 3 + head < input.count, input[start + 3 + head] == UInt8(ascii: ".") else {
                return nil
            }
            return start..<(start + input[start...].prefix { isWordByte($0) || $0 == UInt8(ascii: ".") }.count)
        }
        for shape in shapes where matches(input, at: start, shape.prefix, ignoringCase: false) {
            let rest = input[(start + shape.prefix.count)...].prefix { isWordByte($0) || $0 == UInt8(ascii: ".") }
            if rest.count >= shape.minimumRest { return start..<(start + shape.prefix.count + rest.count) }
        }
        return nil
    }

    /// A PEM private key block, from `-----BEGIN ... PRIVATE KEY-----` (the label within 40 bytes, so a text of many
    /// other `-----BEGIN`s stays linear) to its `-----END ... KEY-----` (or the end of a text cut short).
    static func privateKey(in input: [UInt8], at start: Int) -> Range<Int>? {
        let label = Array("PRIVATE KEY-----".utf8)
        guard matches(input, at: start, Array("-----BEGIN ".utf8), ignoringCase: false),
            let offset = find(label, in: Array(input[start..<min(input.count, start + 40 + label.count)]), from: 0)
        else { return nil }
        guard let footer = find(Array("-----END ".utf8), in: input, from: start + offset + label.count),
            let close = find(Array("-----".utf8), in: input, from: footer + 9)
        else { return start..<input.count }
        return start..<(close + 5)
    }

    // MARK: - Bytes

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// `A-Z a-z 0-9 - _`.
    static func isWordByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }

    /// A byte of an unquoted value: anything up to white space, a quote, or a separator of forms, JSON and markup.
    static func isValueByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && !"&\"',;}])<>".utf8.contains(byte)
    }

    static func matches(_ input: [UInt8], at start: Int, _ pattern: [UInt8], ignoringCase: Bool) -> Bool {
        guard start + pattern.count <= input.count else { return false }
        for (offset, expected) in pattern.enumerated() {
            let byte = input[start + offset]
            guard byte == expected || (ignoringCase && isLetter(byte) && byte | 0x20 == expected) else { return false }
        }
        return true
    }

    static func find(_ pattern: [UInt8], in input: [UInt8], from start: Int) -> Int? {
        guard start <= input.count - pattern.count else { return nil }
        return (start...(input.count - pattern.count)).first { matches(input, at: $0, pattern, ignoringCase: false) }
    }

    static func skipSpaces(_ input: [UInt8], from start: Int) -> Int {
        start + input[min(start, input.count)...].prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.count
    }

    /// The offset of the `quote` that ends a quoted value starting at `start` (a backslash escapes the next byte), or
    /// the end of the text.
    static func closingQuote(_ quote: UInt8, in input: [UInt8], from start: Int) -> Int {
        var index = start
        while index < input.count, input[index] != quote {
            index += input[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        return min(index, input.count)
    }
}
