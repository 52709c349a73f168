#include "analyzer/lsp/relint.h"

#include <algorithm>
#include <cstring>

#include <tree_sitter/api.h>

namespace gpulint::lsp {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\r'; }

// The comment of `comments` (sorted) that starts at `at`, or nullptr.
const Comment* comment_at(const std::vector<Comment>& comments, uint32_t at) {
  auto it = std::lower_bound(comments.begin(), comments.end(), at,
                             [](const Comment& c, uint32_t off) { return c.start < off; });
  return it != comments.end() && it->start == at ? &*it : nullptr;
}

// The tail of a line, [from, line_end): blanks, then nothing or one comment running to the
// line's end (a '\r' before the '\n' allowed). `comment_start` gets the comment's offset
// (UINT32_MAX when there is none); `is_comment(offset)` says whether a comment starts there and
// returns its end. False when the tail holds anything else.
template <class IsComment>
bool blank_then_comment(std::string_view text, uint32_t from, uint32_t line_end, IsComment is_comment,
                        uint32_t& comment_start) {
  comment_start = UINT32_MAX;
  uint32_t q = from;
  while (q < line_end && is_blank(text[q])) ++q;
  if (q == line_end) return true;
  if (text[q] != '#') return false;
  uint32_t end = is_comment(q);
  if (end == 0) return false;
  uint32_t e = line_end;
  if (e > q && text[e - 1] == '\r') --e;
  if (end != e && end != line_end) return false;
  comment_start = q;
  return true;
}

}  // namespace

void RelintCache::clear() {
  valid_ = false;
  text_.clear();
  detail_ = PythonAnalysisDetail{};
  report_ = FileReport{};
}

FileReport RelintCache::relint(const SourceFile& source, const TSTree* tree, const FileSettings& settings) {
  FileReport out;
  if (tree && try_reuse(source, tree, out)) {
    ++reused_;
    return out;
  }
  ++analysed_;
  out = analyze_python_tree(source, tree, settings, &detail_);
  valid_ = tree != nullptr;
  text_ = source.text();
  report_ = out;
  return out;
}

bool RelintCache::try_reuse(const SourceFile& source, const TSTree* tree, FileReport& out) {
  // Only a report the rules produced on an error-free tree: nothing but the diagnostics and the
  // suppression count can then differ.
  if (!valid_ || !detail_.rules_ran || report_.syntax_error || report_.not_analysed) return false;
  TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root)) return false;
  std::string_view now = source.text(), before = text_;
  // The edit: [a, b_old) of the old text became [a, b_new) of the new one.
  std::size_t n = std::min(now.size(), before.size());
  std::size_t p = 0;
  while (p < n && now[p] == before[p]) ++p;
  std::size_t s = 0;
  while (s < n - p && now[now.size() - 1 - s] == before[before.size() - 1 - s]) ++s;
  const uint32_t a = static_cast<uint32_t>(p);
  const uint32_t b_old = static_cast<uint32_t>(before.size() - s);
  const uint32_t b_new = static_cast<uint32_t>(now.size() - s);
  if (a == b_old && a == b_new) {  // the same text
    out = report_;
    return true;
  }
  for (std::string_view part : {before.substr(a, b_old - a), now.substr(a, b_new - a)})
    if (part.find_first_of("\r\n") != std::string_view::npos) return false;

  // The line: the same start in both texts, its end moved by the edit.
  std::size_t nl = a == 0 ? std::string_view::npos : before.rfind('\n', a - 1);
  const uint32_t line_start = nl == std::string_view::npos ? 0 : static_cast<uint32_t>(nl + 1);
  std::size_t le = before.find('\n', b_old);
  const uint32_t old_end = le == std::string_view::npos ? static_cast<uint32_t>(before.size()) : static_cast<uint32_t>(le);
  const uint32_t new_end = old_end - b_old + b_new;

  // The line's code (up to its comment, trailing blanks dropped) in the old text: non-empty,
  // and ending before the edit.
  uint32_t old_comment = UINT32_MAX;
  {
    uint32_t code_end = old_end;
    const Comment* c = nullptr;
    for (uint32_t q = line_start; q < old_end; ++q)
      if (before[q] == '#' && (c = comment_at(detail_.comments, q))) {
        code_end = q;
        break;
      }
    while (code_end > line_start && is_blank(before[code_end - 1])) --code_end;
    bool has_code = false;
    for (uint32_t q = line_start; q < code_end; ++q)
      if (!is_blank(before[q])) has_code = true;
    if (!has_code || a < code_end) return false;
    auto old_is_comment = [&](uint32_t q) -> uint32_t {
      const Comment* k = comment_at(detail_.comments, q);
      return k ? k->end : 0;
    };
    if (!blank_then_comment(before, code_end, old_end, old_is_comment, old_comment)) return false;
    // The new line: the same code, then blanks and at most one comment (per the new tree).
    auto new_is_comment = [&](uint32_t q) -> uint32_t {
      TSNode leaf = ts_node_descendant_for_byte_range(root, q, q + 1);
      if (ts_node_is_null(leaf) || std::strcmp(ts_node_type(leaf), "comment") != 0 || ts_node_start_byte(leaf) != q)
        return 0;
      return ts_node_end_byte(leaf);
    };
    uint32_t new_comment = UINT32_MAX;
    if (!blank_then_comment(now, code_end, new_end, new_is_comment, new_comment)) return false;
    // The line's code must be whole: the smallest node of the new tree covering it ends with
    // it. Otherwise (a line inside a multi-line call or bracket, or an `if x:` header) the
    // comment sits inside an expression whose text a cached fix may have copied.
    uint32_t code_start = line_start;
    while (code_start < code_end && is_blank(now[code_start])) ++code_start;
    TSNode covering = ts_node_descendant_for_byte_range(root, code_start, code_end);
    if (ts_node_is_null(covering) || ts_node_end_byte(covering) > code_end) return false;

    // Every offset the cached diagnostics carry must lie clear of the blanks and comment after
    // the code: before code_end, or after b_old (then shifted). A trailing comment can change
    // where tree-sitter ends a block (it joins the block on the block's last line), so an
    // offset at code_end is not clear either; a fix edit spanning the span might copy it.
    const int64_t delta = static_cast<int64_t>(b_new) - static_cast<int64_t>(b_old);
    auto clear_of = [&](uint32_t off) { return off < code_end || off > b_old; };
    std::vector<Diagnostic> shifted = detail_.unsuppressed;
    auto shift = [&](uint32_t& off) {
      if (off > b_old) off = static_cast<uint32_t>(off + delta);
    };
    for (Diagnostic& d : shifted) {
      if (!clear_of(d.start) || !clear_of(d.end)) return false;
      shift(d.start);
      shift(d.end);
      if (!d.fix) continue;
      for (Edit& e : d.fix->edits) {
        if (!clear_of(e.start) || !clear_of(e.end) || (e.start < code_end && e.end > b_old)) return false;
        shift(e.start);
        shift(e.end);
      }
    }
    // The comments of the new text: the old ones shifted, this line's replaced.
    std::vector<Comment> comments;
    comments.reserve(detail_.comments.size() + 1);
    for (const Comment& k : detail_.comments) {
      if (k.start >= line_start && k.start < old_end) continue;
      Comment m = k;
      if (m.start > b_old) {
        m.start = static_cast<uint32_t>(m.start + delta);
        m.end = static_cast<uint32_t>(m.end + delta);
      }
      comments.push_back(m);
    }
    if (new_comment != UINT32_MAX) {
      Comment m{new_comment, new_is_comment(new_comment)};
      comments.insert(std::upper_bound(comments.begin(), comments.end(), m,
                                       [](const Comment& x, const Comment& y) { return x.start < y.start; }),
                      m);
    }
    out = FileReport{};
    finish_python_report(source, comments, shifted, out);
    valid_ = true;
    text_.assign(now);
    detail_.unsuppressed = std::move(shifted);
    detail_.comments = std::move(comments);
    report_ = out;
  }
  return true;
}

}  // namespace gpulint::lsp
