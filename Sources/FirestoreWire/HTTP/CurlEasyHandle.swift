internal import CCurl

/// Owns one libcurl easy handle and its error buffer.
///
/// An easy handle keeps a cache of live connections between transfers, so reusing it gives HTTP keep-alive.
/// libcurl forbids using one handle from two threads at the same time; moving it between threads is fine.
/// `CurlHandlePool` guarantees exclusive use: a handle is either idle in the pool or checked out by exactly
/// one transfer. That invariant is what makes the `@unchecked Sendable` below sound.
final class CurlEasyHandle: @unchecked Sendable {
    /// The `CURL *`.
    let raw: UnsafeMutableRawPointer
    /// `CURL_ERROR_SIZE` bytes that libcurl fills with a readable message when a transfer fails.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private static let errorBufferSize = Int(CURL_ERROR_SIZE)

    /// Creates a fresh easy handle.
    /// - Throws: ``FirestoreError`` with code `.unknown` when libcurl cannot allocate one.
    init() throws(FirestoreError) {
        try CurlRuntime.initialize()
        guard let raw = curl_easy_init() else {
            throw FirestoreError(code: .unknown, message: "curl_easy_init failed")
        }
        self.raw = raw
        errorBuffer = .allocate(capacity: Self.errorBufferSize)
        errorBuffer.initialize(repeating: 0, count: Self.errorBufferSize)
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Clears every option back to libcurl's defaults (live connections, DNS and TLS session caches stay),
    /// then installs and empties the error buffer.
    func reset() throws(FirestoreError) {
        curl_easy_reset(raw)
        errorBuffer[0] = 0
        try check(ccurl_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer), CURLOPT_ERRORBUFFER)
    }

    /// Clears every option, leaving no pointer into memory that a finished transfer owned.
    func clearOptions() {
        curl_easy_reset(raw)
    }

    /// The error buffer's text, or `""` when libcurl wrote none.
    var errorMessage: String {
        String(cString: errorBuffer)
    }

    // MARK: Options

    func set(_ option: CURLoption, _ value: Int) throws(FirestoreError) {
        try check(ccurl_easy_setopt_long(raw, option, value), option)
    }

    func set(_ option: CURLoption, _ value: String) throws(FirestoreError) {
        // libcurl copies string options (except POSTFIELDS, which is set as a pointer), so a temporary
        // C string is enough.
        let code = value.withCString { ccurl_easy_setopt_string(raw, option, $0) }
        try check(code, option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(FirestoreError) {
        try check(ccurl_easy_setopt_pointer(raw, option, pointer), option)
    }

    func set(_ option: CURLoption, offset: Int64) throws(FirestoreError) {
        try check(ccurl_easy_setopt_off_t(raw, option, curl_off_t(offset)), option)
    }

    func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?) throws(FirestoreError) {
        try check(ccurl_easy_setopt_slist(raw, option, list), option)
    }

    func set(writeFunction: curl_write_callback) throws(FirestoreError) {
        try check(ccurl_easy_setopt_write_callback(raw, CURLOPT_WRITEFUNCTION, writeFunction), CURLOPT_WRITEFUNCTION)
    }

    func set(headerFunction: curl_write_callback) throws(FirestoreError) {
        try check(
            ccurl_easy_setopt_header_callback(raw, CURLOPT_HEADERFUNCTION, headerFunction), CURLOPT_HEADERFUNCTION)
    }

    func set(progressFunction: curl_xferinfo_callback) throws(FirestoreError) {
        try check(
            ccurl_easy_setopt_xferinfo_callback(raw, CURLOPT_XFERINFOFUNCTION, progressFunction),
            CURLOPT_XFERINFOFUNCTION)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(FirestoreError) {
        guard code == CURLE_OK else {
            throw FirestoreError(
                code: .unknown,
                message: "curl_easy_setopt(\(option.rawValue)) failed: \(CurlRuntime.describe(code))")
        }
    }

    // MARK: Transfer

    /// Runs the configured transfer; blocks the calling thread until it ends.
    func perform() -> CURLcode {
        curl_easy_perform(raw)
    }

    /// A `long` transfer statistic (e.g. `CURLINFO_RESPONSE_CODE`), or `0` when unavailable.
    func info(_ info: CURLINFO) -> Int {
        var value = 0
        guard ccurl_easy_getinfo_long(raw, info, &value) == CURLE_OK else { return 0 }
        return value
    }
}
