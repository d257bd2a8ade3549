import FirestoreREST
import Foundation
import Synchronization

/// runQuery response bodies, written as the emulator writes them.
enum RunQueryBody {
    static let root = "projects/p/databases/(default)/documents"

    /// `[{"document":...,"readTime":...},...]`, or `[{"readTime","done":true}]` when empty.
    static func make(readTime: String, _ documents: [(id: String, updateTime: String, name: String)]) -> String {
        if documents.isEmpty { return #"[{"readTime":"\#(readTime)","done":true}]"# }
        let rows = documents.map { document in
            #"{"document":{"name":"\#(root)/fruits/\#(document.id)","fields":{"name":{"stringValue":"\#(document.name)"}},"#
                + #""createTime":"2024-05-01T00:00:00Z","updateTime":"\#(document.updateTime)"},"readTime":"\#(readTime)"}"#
        }
        return "[" + rows.joined(separator: ",\n") + "]"
    }
}

extension RunQueryBody {
    /// A keys-only runQuery response (`select: [__name__]`): names and times, no fields.
    static func keys(readTime: String, _ documents: [(id: String, updateTime: String)]) -> String {
        if documents.isEmpty { return #"[{"readTime":"\#(readTime)","done":true}]"# }
        let rows = documents.map { document in
            #"{"document":{"name":"\#(root)/fruits/\#(document.id)","createTime":"2024-05-01T00:00:00Z","#
                + #""updateTime":"\#(document.updateTime)"},"readTime":"\#(readTime)"}"#
        }
        return "[" + rows.joined(separator: ",\n") + "]"
    }

    /// A batchGet response finding each document.
    static func batchGet(readTime: String, _ documents: [(id: String, updateTime: String, name: String)]) -> String {
        let rows = documents.map { document in
            #"{"found":{"name":"\#(root)/fruits/\#(document.id)","fields":{"name":{"stringValue":"\#(document.name)"}},"#
                + #""createTime":"2024-05-01T00:00:00Z","updateTime":"\#(document.updateTime)"},"readTime":"\#(readTime)"}"#
        }
        return "[" + rows.joined(separator: ",\n") + "]"
    }
}
