// Python suppression comments, as Ruff reads them:
//   `# noqa`                  every diagnostic whose first line holds the comment
//   `# noqa: DL001, DL002`    only those codes (also `#noqa:DL001`; `noqa` in any case)
//   `# gpulint: noqa`         the whole file; `# gpulint: noqa: DL001` that code in the file
// Comments arrive as byte ranges from the parser, so `# noqa` inside a string never counts.
// `# noqa:` with no code after it is not a directive (Ruff warns and ignores it);
// `# noqa DL001` (no colon) is a bare `# noqa`, as in Ruff and flake8.
#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "analyzer/analysis.h"

namespace gpulint {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Reads "CODE, CODE CODE" from `s` (after the colon). Stops at the first word that is not a
// code (letters then digits), so `# noqa: DL001 because workers fork` works.
std::vector<std::string> read_codes(std::string_view s) {
  std::vector<std::string> codes;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (is_space(s[i]) || s[i] == ',')) ++i;
    std::size_t start = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t letters_end = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (letters_end == start || i == letters_end) break;
    if (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) break;
    codes.push_back(upper(s.substr(start, i - start)));
  }
  return codes;
}

// Finds `#<ws>word` (case-insensitive) in `comment`; returns the offset just past `word`.
// Each '#' in the comment is a candidate (`# type: ignore  # noqa` has two).
std::optional<std::size_t> find_hash_word(std::string_view comment, std::string_view word,
                                          std::size_t from) {
  for (std::size_t h = comment.find('#', from); h != std::string_view::npos;
       h = comment.find('#', h + 1)) {
    std::size_t j = h + 1;
    while (j < comment.size() && is_space(comment[j])) ++j;
    if (j + word.size() <= comment.size() && iequals(comment.substr(j, word.size()), word))
      return j + word.size();
  }
  return std::nullopt;
}

// `# gpulint: noqa` (all codes: empty vector) or `# gpulint: noqa: CODE, ...`.
std::optional<std::vector<std::string>> parse_file_exemption(std::string_view comment) {
  std::size_t from = 0;
  while (auto after = find_hash_word(comment, "gpulint", from)) {
    std::size_t k = *after;
    from = k;
    while (k < comment.size() && is_space(comment[k])) ++k;
    if (k >= comment.size() || comment[k] != ':') continue;
    ++k;
    while (k < comment.size() && is_space(comment[k])) ++k;
    if (k + 4 > comment.size() || !iequals(comment.substr(k, 4), "noqa")) continue;
    k += 4;
    if (k == comment.size() || is_space(comment[k]) || comment[k] == '#')
      return std::vector<std::string>{};
    if (comment[k] == ':') {
      auto codes = read_codes(comment.substr(k + 1));
      if (!codes.empty()) return codes;
    }
  }
  return std::nullopt;
}

struct LineSuppression {
  bool all = false;
  std::vector<std::string> codes;
};

}  // namespace

std::optional<std::vector<std::string>> parse_noqa(std::string_view comment) {
  std::size_t from = 0;
  while (auto after = find_hash_word(comment, "noqa", from)) {
    std::size_t k = *after;
    from = k;
    if (k == comment.size() || is_space(comment[k]) || comment[k] == '#')
      return std::vector<std::string>{};
    if (comment[k] == ':') {
      auto codes = read_codes(comment.substr(k + 1));
      if (!codes.empty()) return codes;
      continue;  // `# noqa:` without codes: not a directive
    }
    // `# noqaxyz`: not a directive; keep looking.
  }
  return std::nullopt;
}

uint32_t apply_python_suppressions(const SourceFile& source, const std::vector<Comment>& comments,
                                   std::vector<Diagnostic>& diagnostics) {
  if (diagnostics.empty()) return 0;
  const std::string_view text = source.text();
  bool file_all = false;
  std::vector<std::string> file_codes;
  std::unordered_map<uint32_t, LineSuppression> lines;
  for (const Comment& c : comments) {
    if (c.start >= text.size() || c.end <= c.start) continue;
    std::string_view body = text.substr(c.start, std::min<std::size_t>(c.end, text.size()) - c.start);
    if (auto fe = parse_file_exemption(body)) {
      if (fe->empty())
        file_all = true;
      else
        file_codes.insert(file_codes.end(), fe->begin(), fe->end());
      continue;
    }
    if (auto codes = parse_noqa(body)) {
      LineSuppression& s = lines[source.line_of(c.start)];
      if (codes->empty())
        s.all = true;
      else
        s.codes.insert(s.codes.end(), codes->begin(), codes->end());
    }
  }
  if (!file_all && file_codes.empty() && lines.empty()) return 0;
  auto suppressed = [&](const Diagnostic& d) {
    if (file_all) return true;
    std::string code = upper(d.code);
    if (std::find(file_codes.begin(), file_codes.end(), code) != file_codes.end()) return true;
    auto it = lines.find(source.line_of(d.start));
    if (it == lines.end()) return false;
    return it->second.all ||
           std::find(it->second.codes.begin(), it->second.codes.end(), code) !=
               it->second.codes.end();
  };
  auto before = diagnostics.size();
  diagnostics.erase(std::remove_if(diagnostics.begin(), diagnostics.end(), suppressed),
                    diagnostics.end());
  return static_cast<uint32_t>(before - diagnostics.size());
}

namespace {

// One NOLINT directive found in a C++ comment, as clang-tidy 16 reads it
// (clang-tools-extra/clang-tidy/NoLintDirectiveHandler.cpp).
struct Nolint {
  enum class Type { Line, NextLine, Begin, End };
  Type type = Type::Line;
  uint32_t pos = 0;                  ///< byte offset of the 'N' of NOLINT in the file
  /// The check list as written between the parentheses, each item trimmed of whitespace and
  /// joined with ',' (clang-tidy's trimWhitespace); nullopt without parentheses. A BEGIN and an
  /// END pair up only when these are equal.
  std::optional<std::string> checks;
  bool all = false;                  ///< no list, or a `*` in it
  std::vector<std::string> codes;    ///< gpulint rule codes in the list, upper case
  bool suppresses(std::string_view code) const {
    return all || std::find(codes.begin(), codes.end(), code) != codes.end();
  }
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (is_space(s.back()) || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Reads every NOLINT / NOLINTNEXTLINE / NOLINTBEGIN / NOLINTEND directive of one comment
// (clang-tidy's spelling: upper case, an optional `(CHECK, CHECK)` list right after the word,
// closed on the same line; a `(` without its `)` is no list, so the directive covers every
// check, as in clang-tidy). `base` is the comment's offset in the file.
std::vector<Nolint> parse_nolint(std::string_view comment, uint32_t base) {
  std::vector<Nolint> out;
  for (std::size_t at = comment.find("NOLINT"); at != std::string_view::npos;
       at = comment.find("NOLINT", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(comment[at - 1])) || comment[at - 1] == '_'))
      continue;
    Nolint n;
    n.pos = base + static_cast<uint32_t>(at);
    std::size_t k = at + 6;
    std::size_t word_end = k;
    while (word_end < comment.size() && std::isalpha(static_cast<unsigned char>(comment[word_end]))) ++word_end;
    std::string_view suffix = comment.substr(k, word_end - k);
    if (suffix.empty()) n.type = Nolint::Type::Line;
    else if (suffix == "NEXTLINE") n.type = Nolint::Type::NextLine;
    else if (suffix == "BEGIN") n.type = Nolint::Type::Begin;
    else if (suffix == "END") n.type = Nolint::Type::End;
    else continue;  // NOLINTXYZ: not a directive
    k = word_end;
    if (k < comment.size() && (std::isdigit(static_cast<unsigned char>(comment[k])) || comment[k] == '_'))
      continue;
    n.all = true;
    if (k < comment.size() && comment[k] == '(') {
      std::size_t close = comment.find_first_of("\n)", k + 1);
      if (close != std::string_view::npos && comment[close] == ')') {
        std::string_view list = comment.substr(k + 1, close - k - 1);
        n.all = false;
        std::string joined;
        std::size_t i = 0;
        while (true) {
          std::size_t comma = list.find(',', i);
          std::string_view item = trim(list.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i));
          if (i > 0) joined += ',';
          joined += item;
          if (item.find('*') != std::string_view::npos) {
            n.all = true;
          } else {
            // clang-tidy lists check names; gpulint reads rule codes among them, ignores the rest.
            auto codes = read_codes(item);
            if (codes.size() == 1 && item.size() == codes.front().size()) n.codes.push_back(codes.front());
          }
          if (comma == std::string_view::npos) break;
          i = comma + 1;
        }
        n.checks = std::move(joined);
      }
    }
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

uint32_t apply_cpp_suppressions(const SourceFile& source, const std::vector<Comment>& comments,
                                std::vector<Diagnostic>& diagnostics,
                                std::vector<SuppressionError>* errors) {
  if (diagnostics.empty()) return 0;
  const std::string_view text = source.text();
  std::unordered_map<uint32_t, std::vector<Nolint>> lines;
  std::vector<Nolint> stack;                        // open NOLINTBEGINs, innermost last
  std::vector<std::pair<Nolint, uint32_t>> blocks;  // a BEGIN and its END's offset
  std::vector<Nolint> unmatched;                    // in file order
  for (const Comment& c : comments) {
    if (c.start >= text.size() || c.end <= c.start) continue;
    std::string_view body = text.substr(c.start, std::min<std::size_t>(c.end, text.size()) - c.start);
    for (Nolint& n : parse_nolint(body, c.start)) {
      switch (n.type) {
        case Nolint::Type::Line:
          // NOLINT applies to the line it is written on.
          lines[source.line_of(n.pos)].push_back(std::move(n));
          break;
        case Nolint::Type::NextLine: {
          // NOLINTNEXTLINE to the line after the one it is written on.
          uint32_t line = source.line_of(n.pos) + 1;
          lines[line].push_back(std::move(n));
          break;
        }
        case Nolint::Type::Begin:
          stack.push_back(std::move(n));
          break;
        case Nolint::Type::End:
          // Blocks nest: an END closes the innermost open BEGIN, and only when their check
          // lists are the same; otherwise the END is unmatched (clang-tidy's formNoLintBlocks).
          if (!stack.empty() && stack.back().checks == n.checks) {
            blocks.emplace_back(std::move(stack.back()), n.pos);
            stack.pop_back();
          } else {
            unmatched.push_back(std::move(n));
          }
          break;
      }
    }
  }
  for (Nolint& n : stack) unmatched.push_back(std::move(n));
  std::sort(unmatched.begin(), unmatched.end(), [](const Nolint& a, const Nolint& b) { return a.pos < b.pos; });
  if (lines.empty() && blocks.empty() && unmatched.empty()) return 0;

  bool blocks_consulted = false;
  auto suppressed = [&](const Diagnostic& d) {
    std::string code = upper(d.code);
    // NOLINT on the diagnostic's line, NOLINTNEXTLINE on the line before: read first.
    if (auto it = lines.find(source.line_of(d.start)); it != lines.end())
      for (const Nolint& n : it->second)
        if (n.suppresses(code)) return true;
    // Then the NOLINTBEGIN/END blocks around the diagnostic's position.
    blocks_consulted = true;
    for (const auto& [begin, end_pos] : blocks)
      if (begin.pos < d.start && d.start < end_pos && begin.suppresses(code)) return true;
    return false;
  };
  auto before = diagnostics.size();
  diagnostics.erase(std::remove_if(diagnostics.begin(), diagnostics.end(), suppressed),
                    diagnostics.end());
  // clang-tidy reports the unmatched BEGINs and ENDs of a file when one of its diagnostics
  // reaches the block check (one not already suppressed by NOLINT / NOLINTNEXTLINE).
  if (errors && blocks_consulted)
    for (const Nolint& n : unmatched)
      errors->push_back(SuppressionError{
          n.pos, n.type == Nolint::Type::Begin
                     ? "unmatched 'NOLINTBEGIN' comment without a subsequent 'NOLINTEND' comment"
                     : "unmatched 'NOLINTEND' comment without a previous 'NOLINTBEGIN' comment"});
  return static_cast<uint32_t>(before - diagnostics.size());
}

}  // namespace gpulint
