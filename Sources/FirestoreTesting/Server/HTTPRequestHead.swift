import FirestoreREST

/// The head of one HTTP/1.1 request to a server of this package (``CassetteHTTPServer``, `firestore-feed serve`) and
/// how its body is framed, or why the request is refused (RFC 9112): a message whose length cannot be told for sure
/// is answered and the connection closed, never guessed at, so no request can be read as two or two as one.
package struct HTTPRequestHead: Equatable {
    /// How the body that follows the head is delimited.
    package enum Body: Equatable {
        case none
        case length(Int)
        case chunked
    }

    /// Why a request is refused: the status it is answered with and the reason, in words (ending with the rule).
    package struct Refusal: Error, Equatable {
        package let status: Int
        package let reason: String

        package init(status: Int, reason: String) {
            self.status = status
            self.reason = reason
        }
    }

    package var method: String
    package var target: String
    package var headers: [HTTPHeader]
    package var keepAlive: Bool
    package var body: Body
    package var expectsContinue: Bool

    /// The head in `text` (the bytes before the empty line, as UTF-8).
    ///
    /// Refused with 400: a request line that is not `METHOD /TARGET HTTP/1.x`; a header line without a name, with
    /// white space before its colon (section 5.1) or folded onto the line before (`obs-fold`, section 5.2); an
    /// HTTP/1.1 request without exactly one `Host` (section 3.2); more than one `Content-Length`, one that is not
    /// a number, both `Content-Length` and `Transfer-Encoding`, or a `Transfer-Encoding` whose last coding is not
    /// `chunked` (section 6.3). With 501: a transfer coding other than `chunked` (section 6.1). With 413: a
    /// `Content-Length` over `maxBodyBytes`.
    /// - Complexity: O(n) in the head's length.
    package static func parse(_ text: String, maxBodyBytes: Int) -> Result<HTTPRequestHead, Refusal> {
        func refuse(_ status: Int, _ reason: String) -> Result<HTTPRequestHead, Refusal> {
            .failure(Refusal(status: status, reason: reason))
        }
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let firstLine = lines.isEmpty ? "" : lines.removeFirst()
        let requestLine = firstLine.split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1."), requestLine[1].hasPrefix("/") else {
            return refuse(400, "request line \"\(firstLine.prefix(200))\" is not METHOD /TARGET HTTP/1.x")
        }
        var headers: [HTTPHeader] = []
        for line in lines where !line.isEmpty {
            if line.first == " " || line.first == "\t" {
                return refuse(400, "a header line folded onto the one before (RFC 9112 section 5.2)")
            }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                return refuse(400, "a header line without a name and a colon")
            }
            let name = line[..<colon]
            guard !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                return refuse(400, "white space between a header's name and its colon (RFC 9112 section 5.1)")
            }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append(
                HTTPHeader(String(name), String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed())))
        }
        func values(_ name: String) -> [String] { headers.filter { $0.matches(name) }.map(\.value) }
        let isHTTP11 = requestLine[2] == "HTTP/1.1"
        let hosts = values("host").count
        if isHTTP11, hosts != 1 {
            return refuse(400, "\(hosts) Host headers in an HTTP/1.1 request, not 1 (RFC 9112 section 3.2)")
        }
        let lengths = values("content-length")
        let codings = values("transfer-encoding").flatMap { $0.split(separator: ",") }.map {
            $0.filter { $0 != " " && $0 != "\t" }.lowercased()
        }
        var body = Body.none
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                return refuse(400, "both Transfer-Encoding and Content-Length (RFC 9112 section 6.3)")
            }
            guard codings.last == "chunked", !codings.dropLast().contains("chunked") else {
                return refuse(
                    400,
                    "Transfer-Encoding \"\(codings.joined(separator: ", "))\" does not end with one chunked "
                        + "(RFC 9112 section 6.3)")
            }
            guard codings.count == 1 else {
                return refuse(501, "transfer coding \"\(codings[0])\" is not supported (RFC 9112 section 6.1)")
            }
            body = .chunked
        } else if !lengths.isEmpty {
            guard lengths.count == 1 else {
                return refuse(400, "\(lengths.count) Content-Length headers (RFC 9112 section 6.3)")
            }
            let text = lengths[0]
            guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let length = Int(text)
            else {
                return refuse(
                    400, "Content-Length \"\(text.prefix(40))\" is not a number of bytes (RFC 9112 section 6.3)")
            }
            guard length <= maxBodyBytes else {
                return refuse(413, "a body of \(length) bytes, over the limit of \(maxBodyBytes)")
            }
            body = length == 0 ? .none : .length(length)
        }
        let connection = values("connection").joined(separator: ",").lowercased()
        return .success(
            HTTPRequestHead(
                method: String(requestLine[0]), target: String(requestLine[1]), headers: headers,
                keepAlive: isHTTP11 ? !connection.contains("close") : connection.contains("keep-alive"), body: body,
                expectsContinue: values("expect").first?.lowercased() == "100-continue"))
    }
}
