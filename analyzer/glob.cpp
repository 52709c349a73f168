// Glob matching with gitignore(5) semantics, .gitignore parsing, and path helpers.
#include "analyzer/glob.h"

#include <fstream>
#include <sstream>

namespace gpulint {

Glob::Glob(std::string_view p) : pattern_(p) {
  auto make_token = [](Kind k) {
    Token t;
    t.kind = k;
    return t;
  };
  std::size_t i = 0, n = p.size();
  auto push_literal = [&](char c) {
    Token t;
    t.kind = Kind::Literal;
    t.ch = c;
    tokens_.push_back(std::move(t));
    literal_.push_back(c);
  };
  while (i < n) {
    char c = p[i];
    if (c == '\\') {
      if (i + 1 < n) {
        push_literal(p[i + 1]);
        i += 2;
      } else {
        push_literal('\\');
        ++i;
      }
      continue;
    }
    if (c == '?') {
      tokens_.push_back(make_token(Kind::AnyChar));
      literal_only_ = false;
      ++i;
      continue;
    }
    if (c == '*') {
      std::size_t j = i;
      while (j < n && p[j] == '*') ++j;
      std::size_t stars = j - i;
      bool at_component_start = (i == 0 || p[i - 1] == '/');
      literal_only_ = false;
      if (stars >= 2 && at_component_start && (j == n || p[j] == '/')) {
        if (j == n) {
          tokens_.push_back(make_token(Kind::AllStar));
          i = j;
        } else {
          tokens_.push_back(make_token(Kind::DirStar));
          i = j + 1;  // the '/' belongs to the token
        }
      } else {
        tokens_.push_back(make_token(Kind::Star));
        i = j;
      }
      continue;
    }
    if (c == '[') {
      // Parse a character class; without a closing ']' the '[' is a literal.
      std::size_t j = i + 1;
      Token t;
      t.kind = Kind::Class;
      if (j < n && (p[j] == '!' || p[j] == '^')) {
        t.negated = true;
        ++j;
      }
      bool first = true, closed = false;
      while (j < n) {
        unsigned char lo = static_cast<unsigned char>(p[j]);
        if (p[j] == ']' && !first) {
          closed = true;
          break;
        }
        first = false;
        if (p[j] == '\\' && j + 1 < n) {
          ++j;
          lo = static_cast<unsigned char>(p[j]);
        }
        unsigned char hi = lo;
        if (j + 2 < n && p[j + 1] == '-' && p[j + 2] != ']') {
          j += 2;
          if (p[j] == '\\' && j + 1 < n) ++j;
          hi = static_cast<unsigned char>(p[j]);
        }
        t.ranges.emplace_back(lo, hi);
        ++j;
      }
      if (closed) {
        tokens_.push_back(std::move(t));
        literal_only_ = false;
        i = j + 1;
      } else {
        push_literal('[');
        ++i;
      }
      continue;
    }
    push_literal(c);
    ++i;
  }
}

bool Glob::class_matches(const Token& t, unsigned char c) const {
  bool in = false;
  for (auto [lo, hi] : t.ranges)
    if (c >= lo && c <= hi) {
      in = true;
      break;
    }
  return in != t.negated;
}

// memo: -1 unknown, 0 false, 1 true; indexed pi * (text.size() + 1) + ti.
bool Glob::match_from(std::size_t pi, std::string_view text, std::size_t ti,
                      std::vector<int8_t>& memo) const {
  const std::size_t stride = text.size() + 1;
  int8_t& slot = memo[pi * stride + ti];
  if (slot >= 0) return slot == 1;
  bool result = false;
  if (pi == tokens_.size()) {
    result = ti == text.size();
  } else {
    const Token& t = tokens_[pi];
    switch (t.kind) {
      case Kind::Literal:
        result = ti < text.size() && text[ti] == t.ch && match_from(pi + 1, text, ti + 1, memo);
        break;
      case Kind::AnyChar:
        result = ti < text.size() && text[ti] != '/' && match_from(pi + 1, text, ti + 1, memo);
        break;
      case Kind::Class:
        result = ti < text.size() && text[ti] != '/' &&
                 class_matches(t, static_cast<unsigned char>(text[ti])) &&
                 match_from(pi + 1, text, ti + 1, memo);
        break;
      case Kind::Star:
        for (std::size_t k = ti;; ++k) {
          if (match_from(pi + 1, text, k, memo)) {
            result = true;
            break;
          }
          if (k >= text.size() || text[k] == '/') break;
        }
        break;
      case Kind::DirStar:
        // Zero directories, or any number of whole "component/" runs.
        if (match_from(pi + 1, text, ti, memo)) {
          result = true;
          break;
        }
        for (std::size_t k = ti; k < text.size(); ++k) {
          if (text[k] == '/' && match_from(pi + 1, text, k + 1, memo)) {
            result = true;
            break;
          }
        }
        break;
      case Kind::AllStar:
        result = true;  // always the last token
        break;
    }
  }
  slot = result ? 1 : 0;
  return result;
}

bool Glob::matches(std::string_view path) const {
  if (literal_only_) return path == literal_;
  std::vector<int8_t> memo((tokens_.size() + 1) * (path.size() + 1), -1);
  return match_from(0, path, 0, memo);
}

std::optional<PathPattern> PathPattern::parse(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || line.front() == '#') return std::nullopt;
  // Strip unescaped trailing spaces.
  while (!line.empty() && line.back() == ' ') {
    std::size_t backslashes = 0;
    for (std::size_t k = line.size() - 1; k > 0 && line[k - 1] == '\\'; --k) ++backslashes;
    if (backslashes % 2 == 1) break;  // "\ " keeps the space
    line.remove_suffix(1);
  }
  if (line.empty()) return std::nullopt;
  PathPattern p;
  if (line.front() == '!') {
    p.negated = true;
    line.remove_prefix(1);
  }
  if (!line.empty() && line.back() == '/') {
    p.dir_only = true;
    while (!line.empty() && line.back() == '/') line.remove_suffix(1);
  }
  if (line.empty()) return std::nullopt;
  if (line.front() == '/') {
    p.anchored = true;
    while (!line.empty() && line.front() == '/') line.remove_prefix(1);
  } else if (line.find('/') != std::string_view::npos) {
    p.anchored = true;
  }
  if (line.empty()) return std::nullopt;
  p.glob = Glob(line);
  return p;
}

bool PathPattern::matches(std::string_view rel_path, bool is_dir) const {
  if (dir_only && !is_dir) return false;
  if (anchored) return glob.matches(rel_path);
  std::size_t slash = rel_path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? rel_path : rel_path.substr(slash + 1);
  return glob.matches(base);
}

IgnoreFile::IgnoreFile(std::string_view content, std::filesystem::path base)
    : base_(std::move(base)) {
  std::size_t pos = 0;
  while (pos <= content.size()) {
    std::size_t nl = content.find('\n', pos);
    std::string_view line =
        content.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (auto p = PathPattern::parse(line)) patterns_.push_back(std::move(*p));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
}

std::optional<IgnoreFile> IgnoreFile::read(const std::filesystem::path& file,
                                           std::filesystem::path base) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return IgnoreFile(ss.str(), std::move(base));
}

std::optional<bool> IgnoreFile::decide(std::string_view rel_path, bool is_dir) const {
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it)
    if (it->matches(rel_path, is_dir)) return !it->negated;
  return std::nullopt;
}

std::filesystem::path absolute_normal(const std::filesystem::path& p,
                                      const std::filesystem::path& cwd) {
  std::filesystem::path abs = p.is_absolute() ? p : cwd / p;
  abs = abs.lexically_normal();
  // lexically_normal keeps a trailing separator ("a/b/"); drop it (but keep "/").
  std::string s = abs.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return std::filesystem::path(s);
}

std::optional<std::string> relative_under(const std::filesystem::path& path,
                                          const std::filesystem::path& base) {
  const std::string& p = path.native();
  const std::string& b = base.native();
  if (p == b) return std::string();
  if (b == "/") return p.size() > 1 ? std::optional<std::string>(p.substr(1)) : std::string();
  if (p.size() > b.size() && p.compare(0, b.size(), b) == 0 && p[b.size()] == '/')
    return p.substr(b.size() + 1);
  return std::nullopt;
}

}  // namespace gpulint
