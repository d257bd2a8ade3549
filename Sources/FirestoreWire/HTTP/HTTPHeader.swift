#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One header field. Names compare case-insensitively through ``HTTPHeader/matches(_:)``.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether this header's name equals `name`, ignoring ASCII case.
    public func matches(_ name: String) -> Bool {
        self.name.lowercased() == name.lowercased()
    }
}
