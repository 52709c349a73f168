// SourceFile: the bytes of one analysed file plus a line index.
//
// Offsets everywhere in gpulint are byte offsets into `text()` (UTF-8, BOM removed).
// Lines are 0-based internally; output formats convert (text: 1-based line, 1-based column
// in Unicode code points as Ruff does; LSP: 0-based line, UTF-16 code units).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

/// A 0-based line and a 0-based column; the column unit depends on the function that made it.
struct LineCol {
  uint32_t line = 0;
  uint32_t column = 0;
};

/// Why a file could not be loaded. `message` is a sentence a user can act on.
struct LoadError {
  std::string message;
};

class SourceFile {
 public:
  /// Files larger than this are refused by `load` (gpulint is a linter, not a data reader).
  static constexpr std::size_t kMaxBytes = 64u * 1024u * 1024u;

  /// Builds a source from bytes already in memory. A leading UTF-8 BOM is removed from
  /// `text()` and remembered (`had_bom()`), so that `--fix` can write it back.
  SourceFile(std::string path, std::string bytes);

  /// Reads `path`. Errors (never throws): unreadable file, a directory, larger than
  /// kMaxBytes, binary content (a NUL byte in the first 8 KiB), invalid UTF-8 (the message
  /// names the line and byte offset of the first bad sequence).
  static std::optional<SourceFile> load(const std::string& path, LoadError* error);

  /// Validates bytes (for stdin and the LSP): the same checks as `load` without I/O.
  static std::optional<SourceFile> from_bytes(std::string path, std::string bytes,
                                              LoadError* error);

  const std::string& path() const { return path_; }
  std::string_view text() const { return text_; }
  bool had_bom() const { return had_bom_; }
  /// True when most lines end in "\r\n" (fix edits that insert lines use the same ending).
  bool crlf() const { return crlf_; }
  const char* newline() const { return crlf_ ? "\r\n" : "\n"; }

  std::size_t line_count() const { return line_starts_.size(); }
  /// 0-based line containing byte `offset` (offset may equal text().size()).
  uint32_t line_of(uint32_t offset) const;
  /// Byte offset where 0-based `line` starts.
  uint32_t line_start(uint32_t line) const { return line_starts_.at(line); }
  /// The text of 0-based `line` without its line ending.
  std::string_view line_text(uint32_t line) const;
  /// Line and column in Unicode code points (what Ruff prints, 0-based here).
  LineCol codepoint_position(uint32_t offset) const;
  /// Inverse of codepoint_position: the byte offset of 0-based `pos.line` and 0-based
  /// code-point `pos.column` (the column may equal the line's length in code points: its end,
  /// before the line ending). nullopt when the line or the column lies outside the text (no
  /// clamping: a caller reading positions written from another text must notice).
  std::optional<uint32_t> offset_from_codepoint(LineCol pos) const;
  /// Line and column in UTF-16 code units (LSP's default position encoding).
  LineCol utf16_position(uint32_t offset) const;
  /// Inverse of utf16_position; clamps to the line's end.
  uint32_t offset_from_utf16(LineCol pos) const;

  /// The whole file as it would be written back (BOM restored).
  std::string bytes_for_writing(std::string_view new_text) const;

 private:
  std::string path_;
  std::string text_;
  bool had_bom_ = false;
  bool crlf_ = false;
  std::vector<uint32_t> line_starts_;
};

/// Returns the byte offset of the first invalid UTF-8 sequence, or nullopt when valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view bytes);

}  // namespace gpulint
