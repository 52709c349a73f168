// JSON-RPC 2.0 framing as LSP 3.17 defines it ("Base Protocol"): each message is a header
// block (`Content-Length: N\r\n`, optionally `Content-Type: ...\r\n`, then `\r\n`) followed by
// exactly N bytes of UTF-8 JSON. This layer only frames bytes; the server decides what the JSON
// means.
#pragma once

#include <cstddef>
#include <istream>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace gpulint::lsp {

/// What MessageReader::next() found.
struct ReadResult {
  enum class Kind {
    Message,    ///< `body` holds one message body (not yet parsed as JSON)
    BadHeader,  ///< a header block without a valid Content-Length (or one over the limit);
                ///< `error` says why. The block (and an over-limit body) was consumed, so the
                ///< caller can answer with a JSON-RPC parse error and read on.
    Eof,        ///< the stream ended; `error` is empty at a message boundary, otherwise it says
                ///< what was cut off ("truncated body: 10 of 52 bytes")
  };
  Kind kind = Kind::Eof;
  std::string body;
  std::string error;
};

/// Reads framed messages from a blocking stream (std::cin, or an istringstream in tests).
class MessageReader {
 public:
  /// Header lines longer than this are malformed (their rest is skipped).
  static constexpr std::size_t kMaxHeaderLine = 8192;
  /// Bodies larger than this (bytes) are refused: skipped and reported as BadHeader. Big
  /// enough for any source file gpulint analyses (SourceFile::kMaxBytes) JSON-escaped.
  static constexpr std::size_t kDefaultMaxBody = 512u * 1024u * 1024u;

  explicit MessageReader(std::istream& in, std::size_t max_body = kDefaultMaxBody)
      : in_(in), max_body_(max_body) {}

  /// Blocks until one message, one malformed header block, or the end of the stream.
  /// Header names are case-insensitive; lines may end in "\r\n" or "\n". Never throws.
  ReadResult next();

 private:
  std::istream& in_;
  std::size_t max_body_;
};

/// Writes framed messages (`Content-Length: N\r\n\r\n` + compact JSON) and flushes each one.
/// Strings that are not valid UTF-8 are written with U+FFFD replacements, never thrown on.
class MessageWriter {
 public:
  explicit MessageWriter(std::ostream& out) : out_(out) {}
  void send(const nlohmann::json& message);
  /// False once a write failed (the client closed its end).
  bool good() const { return out_.good(); }

 private:
  std::ostream& out_;
};

/// The framed bytes of `message` (what MessageWriter::send writes).
std::string frame(const nlohmann::json& message);

}  // namespace gpulint::lsp
