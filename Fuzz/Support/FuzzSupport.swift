import Foundation

// Shared by every fuzz target (compiled into each one by Scripts/fuzz). A fuzz target is one file in Fuzz/
// that defines `LLVMFuzzerTestOneInput`; it calls `fuzzCheck` for each property it checks, and a failed
// check aborts, which libFuzzer records as a crash with the input that caused it.

/// Aborts with `message` (written to stderr) unless `condition` holds.
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz check failed: \(message())\n".utf8))
        abort()
    }
}

/// The fuzzer's input as bytes.
func fuzzBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> Data {
    Data(bytes: data, count: size)
}

/// The fuzzer's input as text, or `nil` when it is not valid UTF-8 (the parsers under test take `String`s,
/// which are valid UTF-8 by construction).
func fuzzText(_ data: UnsafePointer<UInt8>, _ size: Int) -> String? {
    String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}
