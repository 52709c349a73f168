#include "analyzer/lsp/transport.h"

#include <cctype>
#include <charconv>
#include <optional>

namespace gpulint::lsp {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// One header line without its line ending. nullopt at the end of the stream before any byte.
// `*too_long` is set when the line exceeded the limit (the rest of it is consumed).
std::optional<std::string> read_line(std::istream& in, std::size_t limit, bool* too_long) {
  std::string line;
  *too_long = false;
  bool any = false;
  for (;;) {
    int c = in.get();
    if (c == std::char_traits<char>::eof()) {
      if (!any) return std::nullopt;
      break;
    }
    any = true;
    if (c == '\n') break;
    if (line.size() < limit) line.push_back(static_cast<char>(c));
    else *too_long = true;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

ReadResult MessageReader::next() {
  ReadResult r;
  std::optional<std::size_t> length;
  std::string problem;
  bool any_line = false;
  for (;;) {
    bool too_long = false;
    std::optional<std::string> line = read_line(in_, kMaxHeaderLine, &too_long);
    if (!line) {
      r.kind = ReadResult::Kind::Eof;
      if (any_line) r.error = "the stream ended inside a header block";
      return r;
    }
    if (line->empty()) {
      if (!any_line) continue;  // stray blank lines between messages
      break;
    }
    any_line = true;
    if (too_long) {
      if (problem.empty()) problem = "header line longer than " + std::to_string(kMaxHeaderLine) + " bytes";
      continue;
    }
    std::size_t colon = line->find(':');
    if (colon == std::string::npos) {
      if (problem.empty()) problem = "malformed header line (no `:`): `" + line->substr(0, 80) + "`";
      continue;
    }
    std::string name = lower(trim(std::string_view(*line).substr(0, colon)));
    std::string_view value = trim(std::string_view(*line).substr(colon + 1));
    if (name == "content-length") {
      std::size_t n = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || p != value.data() + value.size() || value.empty()) {
        if (problem.empty()) problem = "invalid Content-Length `" + std::string(value.substr(0, 40)) + "`";
        continue;
      }
      length = n;
    }
    // Content-Type and unknown headers are ignored (the body is always UTF-8 JSON).
  }
  if (!problem.empty() || !length) {
    r.kind = ReadResult::Kind::BadHeader;
    r.error = problem.empty() ? "header block without Content-Length" : problem;
    return r;
  }
  if (*length > max_body_) {
    // Skip the body so the next message can be read.
    in_.ignore(static_cast<std::streamsize>(*length));
    if (static_cast<std::size_t>(in_.gcount()) < *length) {
      r.kind = ReadResult::Kind::Eof;
      r.error = "truncated body";
      return r;
    }
    r.kind = ReadResult::Kind::BadHeader;
    r.error = "Content-Length " + std::to_string(*length) + " exceeds the limit of " +
              std::to_string(max_body_) + " bytes";
    return r;
  }
  r.body.resize(*length);
  in_.read(r.body.data(), static_cast<std::streamsize>(*length));
  std::size_t got = static_cast<std::size_t>(in_.gcount());
  if (got < *length) {
    r.kind = ReadResult::Kind::Eof;
    r.error = "truncated body: " + std::to_string(got) + " of " + std::to_string(*length) + " bytes";
    r.body.clear();
    return r;
  }
  r.kind = ReadResult::Kind::Message;
  return r;
}

std::string frame(const nlohmann::json& message) {
  std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  return out;
}

void MessageWriter::send(const nlohmann::json& message) {
  std::string bytes = frame(message);
  out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out_.flush();
}

}  // namespace gpulint::lsp
