import Foundation

/// The resident set size of this process, from `/proc/self/status` (`VmRSS`, Linux).
enum ResidentMemory {
    /// Resident memory in bytes, or `nil` when `/proc/self/status` cannot be read.
    static func bytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.dropFirst("VmRSS:".count).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// The sanitizer this process runs under (`"AddressSanitizer"`, `"ThreadSanitizer"`), or `nil`. Resident
    /// memory says nothing about leaks then: AddressSanitizer keeps freed memory in quarantine, and both add
    /// shadow memory as the program touches more addresses.
    static let sanitizer: String? = {
        guard let program = dlopen(nil, RTLD_NOW) else { return nil }
        defer { dlclose(program) }
        if dlsym(program, "__asan_init") != nil { return "AddressSanitizer" }
        if dlsym(program, "__tsan_init") != nil { return "ThreadSanitizer" }
        return nil
    }()

    /// `31.2 MiB`.
    static func describe(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
