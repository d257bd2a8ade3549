internal import CCurl

/// Process-wide libcurl state: `curl_global_init` (preceded by the OpenSSL no-atexit setting, see `shim.h`)
/// runs exactly once, the first time any transfer needs it.
enum CurlRuntime {
    /// The raw `CURLcode` of the one `ccurl_global_init()` call. A `static let` is initialised lazily and
    /// thread-safely, which is exactly the "call once before first use" contract libcurl asks for.
    private static let globalInitCode: UInt32 = ccurl_global_init().rawValue

    /// Ensures libcurl is initialised.
    /// - Throws: ``FirestoreError`` with code `.unknown` when `curl_global_init` failed.
    static func initialize() throws(FirestoreError) {
        let code = CURLcode(rawValue: globalInitCode)
        guard code == CURLE_OK else {
            throw FirestoreError(code: .unknown, message: "curl_global_init failed: \(CurlRuntime.describe(code))")
        }
    }

    /// The linked libcurl's version string, e.g. `7.88.1`, or `unknown`.
    static var version: String {
        guard let info = ccurl_version_info(), let version = info.pointee.version else { return "unknown" }
        return String(cString: version)
    }

    /// curl's own text for `code`, e.g. `Couldn't connect to server`.
    static func describe(_ code: CURLcode) -> String {
        guard let text = curl_easy_strerror(code) else { return "curl error \(code.rawValue)" }
        return String(cString: text)
    }
}
