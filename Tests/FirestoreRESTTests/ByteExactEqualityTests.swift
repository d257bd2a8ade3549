import Testing

@testable import FirestoreREST

/// Firestore compares strings by their UTF-8 bytes: string values, references, map keys and document names
/// alike (Firestore docs, "Ordering of value types": strings are ordered by UTF-8 encoded bytes). Swift's
/// `String ==` uses canonical equivalence, so every equality and hash of Firestore data compares bytes instead
/// (`String.utf8Equals(_:)` and its hashing partners).
@Suite("Byte-exact equality of Firestore strings", .timeLimit(.minutes(2)))
struct ByteExactEqualityTests {
    /// `é` precomposed (NFC, U+00E9) and decomposed (NFD, `e` + U+0301).
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test func theTwoSpellingsAreDifferentBytesButEqualSwiftStrings() {
        #expect(Array(Self.composed.utf8) == [0xC3, 0xA9])
        #expect(Array(Self.decomposed.utf8) == [0x65, 0xCC, 0x81])
        #expect(Self.composed == Self.decomposed)  // Swift's rule, which Firestore data must not use
        #expect(!Self.composed.utf8Equals(Self.decomposed))
        #expect(Self.composed.utf8Equals("\u{E9}"))
        #expect(!"ab".utf8Equals("abc"))
    }

    @Test func nfcAndNfdAreDifferentValues() {
        let nfc = FirestoreValue.string(Self.composed)
        let nfd = FirestoreValue.string(Self.decomposed)
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        #expect(nfc == .string("\u{E9}"))
        #expect(nfc.hashValue == FirestoreValue.string("\u{E9}").hashValue)
        #expect(FirestoreValue.array([nfc]) != .array([nfd]))
        #expect(FirestoreValue.map(["k": nfc]) != .map(["k": nfd]))
    }

    @Test func nfcAndNfdAreDifferentReferences() {
        let root = "projects/p/databases/(default)/documents/c/"
        let nfc = FirestoreValue.reference(root + Self.composed)
        let nfd = FirestoreValue.reference(root + Self.decomposed)
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
    }

    @Test func nfcAndNfdAreDifferentMapKeys() {
        let nfc = FirestoreValue.map([Self.composed: 1])
        let nfd = FirestoreValue.map([Self.decomposed: 1])
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        // Same keys, any order: equal, and hashed alike.
        let a = FirestoreValue.map([Self.composed: 1, "a": 2, Self.decomposed + "x": 3])
        let b = FirestoreValue.map(["a": 2, Self.decomposed + "x": 3, Self.composed: 1])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    /// Ordering and equality agree: `compare` is 0 exactly for equal values, and NFC sorts after NFD
    /// (0xC3 > 0x65).
    @Test func orderingAgreesWithEquality() {
        let nfc = FirestoreValue.string(Self.composed)
        let nfd = FirestoreValue.string(Self.decomposed)
        #expect(FirestoreValue.compare(nfc, nfd) > 0)
        #expect(FirestoreValue.compare(nfd, nfc) < 0)
        #expect(FirestoreValue.compare(nfc, .string("\u{E9}")) == 0)
    }

    @Test func nfcAndNfdAreDifferentDocuments() {
        let root = "projects/p/databases/(default)/documents/c/"
        let nfc = Document(name: root + Self.composed, fields: ["x": 1])
        let nfd = Document(name: root + Self.decomposed, fields: ["x": 1])
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        #expect(Array(nfc.id.utf8) == [0xC3, 0xA9])
        #expect(Array(nfd.id.utf8) == [0x65, 0xCC, 0x81])
        #expect(nfc == Document(name: root + "\u{E9}", fields: ["x": 1]))
        #expect(
            Document(name: root + "d", fields: [Self.composed: 1])
                != Document(name: root + "d", fields: [Self.decomposed: 1]))
    }

    @Test func nfcAndNfdAreDifferentPathsAndNames() throws {
        #expect(try ResourcePath(segments: ["c", Self.composed]) != ResourcePath(segments: ["c", Self.decomposed]))
        #expect(try FieldPath([Self.composed]) != FieldPath([Self.decomposed]))
        #expect(try Set([FieldPath([Self.composed]), FieldPath([Self.decomposed])]).count == 2)
        #expect(ByteExactName(name: "c/" + Self.composed) != ByteExactName(name: "c/" + Self.decomposed))
        #expect(ByteExactName(name: "c/" + Self.composed) == "c/\u{E9}")
    }

    /// A batchGet that finds both spellings keeps both documents (a `String`-keyed dictionary kept one).
    @Test func batchGetKeepsBothSpellings() throws {
        let root = "projects/p/databases/(default)/documents/c/"
        let body = try json(
            """
            [{"found":{"name":"\(root)\(Self.composed)"},"readTime":"2024-05-01T00:00:00Z"},
             {"found":{"name":"\(root)\(Self.decomposed)"},"readTime":"2024-05-01T00:00:00Z"}]
            """)
        let response = try Firestore.decodeBatchGet(body)
        #expect(response.found.count == 2)
        #expect(response.found[ByteExactName(name: root + Self.composed)]?.id.utf8.count == 2)
        #expect(response.found[ByteExactName(name: root + Self.decomposed)]?.id.utf8.count == 3)
    }
}
