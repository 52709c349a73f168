#include "analyzer/source.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include <fmt/format.h>

namespace gpulint {

std::optional<std::size_t> find_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) { ++i; continue; }
    std::size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return i;
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    // Overlong encodings, surrogates and out-of-range code points are invalid.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return i;
    i += len;
  }
  return std::nullopt;
}

SourceFile::SourceFile(std::string path, std::string bytes) : path_(std::move(path)) {
  if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xEF &&
      static_cast<unsigned char>(bytes[1]) == 0xBB && static_cast<unsigned char>(bytes[2]) == 0xBF) {
    had_bom_ = true;
    bytes.erase(0, 3);
  }
  text_ = std::move(bytes);
  line_starts_.push_back(0);
  std::size_t crlf = 0, lf = 0;
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++lf;
      if (i > 0 && text_[i - 1] == '\r') ++crlf;
      line_starts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
  crlf_ = lf > 0 && crlf * 2 > lf;
}

std::optional<SourceFile> SourceFile::from_bytes(std::string path, std::string bytes,
                                                 LoadError* error) {
  auto fail = [&](std::string msg) -> std::optional<SourceFile> {
    if (error) error->message = std::move(msg);
    return std::nullopt;
  };
  if (bytes.size() > kMaxBytes)
    return fail(fmt::format("file is too large ({} MiB; the limit is {} MiB)",
                            bytes.size() >> 20, kMaxBytes >> 20));
  std::string_view head(bytes.data(), std::min<std::size_t>(bytes.size(), 8192));
  if (head.find('\0') != std::string_view::npos)
    return fail("binary file (contains NUL bytes); not analysed");
  if (auto bad = find_invalid_utf8(bytes)) {
    std::size_t line = 1 + std::count(bytes.begin(), bytes.begin() + *bad, '\n');
    return fail(fmt::format("invalid UTF-8 at line {} (byte offset {}); gpulint reads UTF-8 only",
                            line, *bad));
  }
  return SourceFile(std::move(path), std::move(bytes));
}

std::optional<SourceFile> SourceFile::load(const std::string& path, LoadError* error) {
  auto fail = [&](std::string msg) -> std::optional<SourceFile> {
    if (error) error->message = std::move(msg);
    return std::nullopt;
  };
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return fail(fmt::format("cannot read: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) return fail("is a directory");
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");
  if (static_cast<std::size_t>(st.st_size) > kMaxBytes)
    return fail(fmt::format("file is too large ({} MiB; the limit is {} MiB)",
                            static_cast<std::size_t>(st.st_size) >> 20, kMaxBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("cannot read: {}", std::strerror(errno)));
  std::string bytes;
  bytes.resize(static_cast<std::size_t>(st.st_size));
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) return fail("read error");
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return from_bytes(path, std::move(bytes), error);
}

uint32_t SourceFile::line_of(uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<uint32_t>(std::distance(line_starts_.begin(), it) - 1);
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line >= line_starts_.size()) return {};
  uint32_t start = line_starts_[line];
  uint32_t end = line + 1 < line_starts_.size() ? line_starts_[line + 1] : text_.size();
  std::string_view s(text_.data() + start, end - start);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

LineCol SourceFile::codepoint_position(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, text_.size());
  uint32_t line = line_of(offset);
  uint32_t col = 0;
  for (uint32_t i = line_starts_[line]; i < offset; ++i)
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++col;
  return {line, col};
}

std::optional<uint32_t> SourceFile::offset_from_codepoint(LineCol pos) const {
  if (pos.line >= line_starts_.size()) return std::nullopt;
  std::string_view lt = line_text(pos.line);
  std::size_t i = 0;
  for (uint32_t cp = 0; cp < pos.column; ++cp) {
    if (i >= lt.size()) return std::nullopt;
    ++i;
    while (i < lt.size() && (static_cast<unsigned char>(lt[i]) & 0xC0) == 0x80) ++i;
  }
  return line_starts_[pos.line] + static_cast<uint32_t>(i);
}

LineCol SourceFile::utf16_position(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, text_.size());
  uint32_t line = line_of(offset);
  uint32_t col = 0;
  for (uint32_t i = line_starts_[line]; i < offset; ++i) {
    unsigned char c = static_cast<unsigned char>(text_[i]);
    if ((c & 0xC0) == 0x80) continue;
    col += (c >= 0xF0) ? 2 : 1;
  }
  return {line, col};
}

uint32_t SourceFile::offset_from_utf16(LineCol pos) const {
  if (pos.line >= line_starts_.size()) return static_cast<uint32_t>(text_.size());
  std::string_view lt = line_text(pos.line);
  uint32_t i = line_starts_[pos.line];
  uint32_t end = i + static_cast<uint32_t>(lt.size());
  uint32_t col = 0;
  while (i < end && col < pos.column) {
    unsigned char c = static_cast<unsigned char>(text_[i]);
    std::size_t len = c < 0x80 ? 1 : (c >= 0xF0 ? 4 : (c >= 0xE0 ? 3 : 2));
    col += len == 4 ? 2 : 1;
    i += static_cast<uint32_t>(len);
  }
  return std::min(i, end);
}

std::string SourceFile::bytes_for_writing(std::string_view new_text) const {
  std::string out;
  if (had_bom_) out = "\xEF\xBB\xBF";
  out.append(new_text);
  return out;
}

}  // namespace gpulint
