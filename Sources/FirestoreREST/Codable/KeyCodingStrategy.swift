import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreEncoder {
    /// How property names become field names. The SDK's and Foundation's `JSONEncoder` strategies.
    public enum KeyEncodingStrategy: Sendable {
        /// The coding key's `stringValue`, unchanged (the default).
        case useDefaultKeys
        /// `camelCase` to `snake_case`, as Foundation's `JSONEncoder` converts: `myURLProperty` becomes
        /// `my_url_property`, `snakeCase` becomes `snake_case`. Dictionary keys are converted too (they are keys
        /// of a keyed container, as in Foundation).
        case convertToSnakeCase
        /// The closure gets the coding path with the key last, and returns the key to use.
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }
}

extension FirestoreDecoder {
    /// How field names are matched to property names. The SDK's and Foundation's `JSONDecoder` strategies.
    public enum KeyDecodingStrategy: Sendable {
        /// Field names are used as they are (the default).
        case useDefaultKeys
        /// Field names in `snake_case` are converted to `camelCase` before they are matched: `snake_case` is
        /// found by the key `snakeCase`; leading and trailing underscores are kept; a name without an
        /// underscore is not changed (Foundation's `JSONDecoder` rule).
        case convertFromSnakeCase
        /// The closure gets the coding path with the stored field name last, and returns the key it matches.
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }
}

/// The snake-case conversions of Foundation's JSON coders, so a model behaves the same with either coder.
enum SnakeCase {
    /// `myURLProperty` -> `my_url_property`: a word starts at each upper-case letter, and a run of capitals
    /// before a lower-case letter is one word but its last capital starts the next.
    static func fromCamelCase(_ key: String) -> String {
        let characters = Array(key)
        guard characters.count > 1 else { return key.lowercased() }
        var words: [Range<Int>] = []
        var wordStart = 0
        var searchStart = 1
        let end = characters.count
        func first(from start: Int, where predicate: (Character) -> Bool) -> Int? {
            var position = start
            while position < end {
                if predicate(characters[position]) { return position }
                position += 1
            }
            return nil
        }
        while let upper = first(from: searchStart, where: \.isUppercase) {
            words.append(wordStart..<upper)
            guard let lower = first(from: upper, where: \.isLowercase) else {
                wordStart = upper
                searchStart = end
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(upper..<(lower - 1))
                wordStart = lower - 1
            }
            searchStart = lower + 1
        }
        words.append(wordStart..<end)
        return words.filter { !$0.isEmpty }.map { String(characters[$0]).lowercased() }.joined(separator: "_")
    }

    /// `snake_case` -> `snakeCase`; `_leading` and `trailing_` underscores stay; a name without an inner
    /// underscore is returned unchanged.
    static func toCamelCase(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first, key[last] == "_" { key.formIndex(before: &last) }
        let body = key[first...last]
        let components = body.split(separator: "_")
        guard components.count > 1 else { return key }
        let joined = components[0].lowercased() + components.dropFirst().map { $0.capitalized }.joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}
