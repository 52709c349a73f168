#include "analyzer/lsp/document.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace gpulint::lsp {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Bytes of the UTF-8 sequence starting with lead byte `c` (1 for continuation/invalid bytes,
// so a walk always advances).
uint32_t utf8_length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

std::optional<std::string> uri_to_path(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(uri[i])) != kScheme[i]) return std::nullopt;
  std::string_view rest = uri.substr(kScheme.size());
  // file://host/path: only an empty host or "localhost" is a local file.
  std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") return std::nullopt;
  rest = rest.substr(slash);
  std::size_t cut = rest.find_first_of("?#");
  if (cut != std::string_view::npos) rest = rest.substr(0, cut);
  std::string out;
  out.reserve(rest.size());
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%') {
      if (i + 2 >= rest.size()) return std::nullopt;
      int hi = hex_value(rest[i + 1]), lo = hex_value(rest[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      char c = static_cast<char>(hi * 16 + lo);
      if (c == '\0') return std::nullopt;
      out.push_back(c);
      i += 2;
    } else {
      out.push_back(rest[i]);
    }
  }
  return out;
}

std::string path_to_uri(std::string_view path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "file://";
  if (path.empty() || path.front() != '/') out.push_back('/');
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Document::Document(std::string uri, std::string path, std::string language_id, int64_t version,
                   std::string text)
    : uri_(std::move(uri)),
      path_(std::move(path)),
      language_id_(std::move(language_id)),
      version_(version),
      text_(std::move(text)) {
  index_lines();
}

void Document::index_lines() {
  line_starts_.clear();
  line_starts_.push_back(0);
  const char* p = text_.data();
  const char* end = p + text_.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
    line_starts_.push_back(static_cast<uint32_t>(p - text_.data()));
  }
}

uint32_t Document::offset_of(LineCol pos) const {
  if (pos.line >= line_starts_.size()) return static_cast<uint32_t>(text_.size());
  uint32_t off = line_starts_[pos.line];
  uint32_t line_end = pos.line + 1 < line_starts_.size() ? line_starts_[pos.line + 1]
                                                         : static_cast<uint32_t>(text_.size());
  // The line's content ends before its "\n" (or "\r\n"): a column never lands inside it.
  if (line_end > off && text_[line_end - 1] == '\n') --line_end;
  if (line_end > off && text_[line_end - 1] == '\r') --line_end;
  uint32_t units = 0;
  while (off < line_end && units < pos.column) {
    uint32_t n = utf8_length(static_cast<unsigned char>(text_[off]));
    if (off + n > line_end) n = line_end - off;
    units += n == 4 ? 2 : 1;  // code points above U+FFFF are two UTF-16 units
    off += n;
  }
  return off;
}

void Document::apply_change(const std::optional<Range>& range, std::string_view new_text) {
  if (!range) {
    text_.assign(new_text);
    index_lines();
    // Nothing of the old tree is reused (it describes another text): parse from scratch.
    tree_ = python::Tree();
    has_tree_ = false;
    tree_edited_ = false;
    stale_ = true;
    return;
  }
  uint32_t a = offset_of(range->start), b = offset_of(range->end);
  if (a > b) std::swap(a, b);
  auto point_of = [&](uint32_t off) {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), off);
    uint32_t row = static_cast<uint32_t>(it - line_starts_.begin()) - 1;
    return TSPoint{row, off - line_starts_[row]};
  };
  TSInputEdit edit;
  edit.start_byte = a;
  edit.old_end_byte = b;
  edit.new_end_byte = a + static_cast<uint32_t>(new_text.size());
  edit.start_point = point_of(a);
  edit.old_end_point = point_of(b);
  std::size_t last_nl = new_text.rfind('\n');
  if (last_nl == std::string_view::npos) {
    edit.new_end_point = {edit.start_point.row,
                          edit.start_point.column + static_cast<uint32_t>(new_text.size())};
  } else {
    uint32_t rows = static_cast<uint32_t>(std::count(new_text.begin(), new_text.end(), '\n'));
    edit.new_end_point = {edit.start_point.row + rows,
                          static_cast<uint32_t>(new_text.size() - last_nl - 1)};
  }
  text_.replace(a, b - a, new_text);
  index_lines();
  if (has_tree_) {
    ts_tree_edit(tree_.raw(), &edit);
    tree_edited_ = true;
  }
  stale_ = true;
}

const python::Tree* Document::tree() {
  if (!stale_ && has_tree_) return &tree_;
  bool reuse = has_tree_ && tree_edited_;
  python::Tree fresh = python::Tree::parse(text_, reuse ? &tree_ : nullptr);
  ++parses_;
  if (reuse) ++incremental_parses_;
  tree_ = std::move(fresh);
  has_tree_ = tree_.valid();
  tree_edited_ = false;
  stale_ = false;
  return has_tree_ ? &tree_ : nullptr;
}

}  // namespace gpulint::lsp
