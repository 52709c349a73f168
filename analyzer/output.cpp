// Output formats (full, concise, json, statistics, summaries) and rule documentation pages.
#include "analyzer/output.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzer/glob.h"
#include "analyzer/output_ci.h"

namespace gpulint {
namespace fs = std::filesystem;

bool parse_output_format(std::string_view name, OutputFormat* out) {
  if (name == "full") *out = OutputFormat::Full;
  else if (name == "concise") *out = OutputFormat::Concise;
  else if (name == "json") *out = OutputFormat::Json;
  else if (name == "json-lines") *out = OutputFormat::JsonLines;
  else if (name == "sarif") *out = OutputFormat::Sarif;
  else if (name == "github") *out = OutputFormat::Github;
  else if (name == "gitlab") *out = OutputFormat::Gitlab;
  else if (name == "junit") *out = OutputFormat::Junit;
  else return false;
  return true;
}

const std::vector<std::string>& output_format_names() {
  static const std::vector<std::string> names = {"full",  "concise", "json",  "json-lines",
                                                 "sarif", "github",  "gitlab", "junit"};
  return names;
}

bool format_has_summary(OutputFormat format) {
  return format == OutputFormat::Full || format == OutputFormat::Concise;
}

std::string display_path(std::string_view path, const fs::path& cwd) {
  if (path == "-" || path.empty()) return std::string(path);
  fs::path abs = absolute_normal(fs::path(path), cwd);
  if (auto rel = relative_under(abs, cwd); rel && !rel->empty()) return *rel;
  return abs.string();
}

std::string absolute_path(std::string_view path, const fs::path& cwd) {
  if (path == "-" || path.empty()) return std::string(path);
  return absolute_normal(fs::path(path), cwd).string();
}

std::string rule_name(std::string_view code) {
  if (const Rule* r = find_rule(code)) return std::string(r->info().name);
  std::string s(code);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string rule_url(std::string_view code) {
  return "https://gpulint.dev/rules/" + rule_name(code);
}

bool fix_available(const Diagnostic& d, bool unsafe_fixes) {
  if (!d.fix || d.fix->edits.empty()) return false;
  switch (d.fix->applicability) {
    case Applicability::Safe: return true;
    case Applicability::Unsafe: return unsafe_fixes;
    case Applicability::DisplayOnly: return false;
  }
  return false;
}

namespace {

// Display width of a UTF-8 slice: one column per code point, tabs as 4.
std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (unsigned char c : s) {
    if (c == '\t') w += 4;
    else if ((c & 0xC0) != 0x80) ++w;
  }
  return w;
}

std::string expand_tabs(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\t') out.append("    ");
    else out.push_back(c);
  }
  return out;
}

// 0-based line and code-point column of `offset`; for a notebook, the line inside its cell.
LineCol position(const SourceFile& src, const Notebook* nb, uint32_t offset) {
  if (!nb) return src.codepoint_position(offset);
  CellPosition p = nb->cell_position(src, offset);
  return {p.line, p.column};
}

}  // namespace

std::string location_text(std::string_view path, const SourceFile& src, const Notebook* nb,
                          uint32_t offset) {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(src.text().size()));
  LineCol lc = position(src, nb, offset);
  if (nb)
    return fmt::format("{}:cell {}:{}:{}", path, nb->cell_position(src, offset).cell,
                       lc.line + 1, lc.column + 1);
  return fmt::format("{}:{}:{}", path, lc.line + 1, lc.column + 1);
}

namespace {

nlohmann::json location_json(const SourceFile& src, uint32_t offset, const Notebook* nb = nullptr) {
  LineCol lc = position(src, nb, offset);
  return {{"row", lc.line + 1}, {"column", lc.column + 1}};
}

std::string marker(const Diagnostic& d, bool unsafe_fixes) {
  return fix_available(d, unsafe_fixes) ? "[*] " : "";
}

void write_full(std::ostream& out, const std::string& path, const SourceFile& src,
                const Notebook* nb, const Diagnostic& d, const OutputOptions& o) {
  out << fmt::format("{}: {} {}{}\n", location_text(path, src, nb, d.start), d.code,
                     marker(d, o.unsafe_fixes), d.message);
  uint32_t line = src.line_of(std::min<uint32_t>(d.start, src.text().size()));
  std::string_view text = src.line_text(line);
  uint32_t line_start = src.line_start(line);
  std::size_t s = std::min<std::size_t>(d.start - line_start, text.size());
  std::size_t e = std::min<std::size_t>(d.end > line_start ? d.end - line_start : 0, text.size());
  std::size_t pad = display_width(text.substr(0, s));
  std::size_t carets = e > s ? display_width(text.substr(s, e - s)) : 0;
  if (carets == 0) carets = 1;
  std::string number = std::to_string(position(src, nb, d.start).line + 1);
  std::string gutter(number.size(), ' ');
  std::string shown = expand_tabs(text);
  out << gutter << " |\n";
  out << number << " |" << (shown.empty() ? "" : " ") << shown << "\n";
  out << gutter << " | " << std::string(pad, ' ') << std::string(carets, '^') << " " << d.code
      << "\n";
  out << gutter << " |\n";
  if (o.show_fixes && d.fix && !d.fix->message.empty())
    out << gutter << " = help: " << d.fix->message << "\n";
  out << "\n";
}

}  // namespace

nlohmann::json diagnostic_to_json(const SourceFile& source, const Diagnostic& d,
                                  const std::string& filename, const Notebook* nb) {
  nlohmann::json j;
  if (nb) j["cell"] = nb->cell_position(source, d.start).cell;
  else j["cell"] = nullptr;
  j["code"] = d.code;
  j["end_location"] = location_json(source, d.end, nb);
  j["filename"] = filename;
  if (d.fix) {
    nlohmann::json edits = nlohmann::json::array();
    std::vector<Edit> sorted = d.fix->edits;
    std::sort(sorted.begin(), sorted.end(),
              [](const Edit& a, const Edit& b) { return a.start < b.start; });
    for (const Edit& e : sorted)
      edits.push_back({{"content", e.content},
                       {"end_location", location_json(source, e.end, nb)},
                       {"location", location_json(source, e.start, nb)}});
    nlohmann::json fix;
    fix["applicability"] = std::string(to_string(d.fix->applicability));
    fix["edits"] = std::move(edits);
    fix["message"] = d.fix->message.empty() ? nlohmann::json(nullptr)
                                            : nlohmann::json(d.fix->message);
    j["fix"] = std::move(fix);
  } else {
    j["fix"] = nullptr;
  }
  j["location"] = location_json(source, d.start, nb);
  j["message"] = d.message;
  j["noqa_row"] = position(source, nb, std::min<uint32_t>(d.start, source.text().size())).line + 1;
  j["url"] = rule_url(d.code);
  return j;
}

void write_diagnostics(std::ostream& out, const std::vector<FileDiagnostics>& files,
                       const OutputOptions& o) {
  switch (o.format) {
    case OutputFormat::JsonLines: write_json_lines(out, files, o); return;
    case OutputFormat::Sarif: write_sarif(out, files, o); return;
    case OutputFormat::Github: write_github(out, files, o); return;
    case OutputFormat::Gitlab: write_gitlab(out, files, o); return;
    case OutputFormat::Junit: write_junit(out, files, o); return;
    default: break;
  }
  if (o.format == OutputFormat::Json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& f : files) {
      if (!f.source || !f.diagnostics) continue;
      std::string filename = absolute_path(f.path, o.cwd);
      for (const Diagnostic& d : *f.diagnostics)
        arr.push_back(diagnostic_to_json(*f.source, d, filename, f.notebook));
    }
    out << arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  for (const auto& f : files) {
    if (!f.source || !f.diagnostics) continue;
    std::string path = display_path(f.path, o.cwd);
    for (const Diagnostic& d : *f.diagnostics) {
      if (o.format == OutputFormat::Concise) {
        out << fmt::format("{}: {} {}{}\n", location_text(path, *f.source, f.notebook, d.start),
                           d.code, marker(d, o.unsafe_fixes), d.message);
      } else {
        write_full(out, path, *f.source, f.notebook, d, o);
      }
    }
  }
}

void write_statistics(std::ostream& out, const std::vector<FileDiagnostics>& files,
                      const OutputOptions& o) {
  struct Stat {
    std::string code;
    std::size_t count = 0;
    bool fixable = false;
  };
  std::map<std::string, Stat> by_code;
  for (const auto& f : files) {
    if (!f.diagnostics) continue;
    for (const Diagnostic& d : *f.diagnostics) {
      Stat& s = by_code[d.code];
      s.code = d.code;
      ++s.count;
      if (fix_available(d, o.unsafe_fixes)) s.fixable = true;
    }
  }
  std::vector<Stat> stats;
  for (auto& [code, s] : by_code) stats.push_back(s);
  std::sort(stats.begin(), stats.end(), [](const Stat& a, const Stat& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.code < b.code;
  });
  if (o.format == OutputFormat::Json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const Stat& s : stats)
      arr.push_back({{"code", s.code}, {"name", rule_name(s.code)}, {"count", s.count},
                     {"fixable", s.fixable}});
    out << arr.dump(2) << "\n";
    return;
  }
  if (stats.empty()) return;
  std::size_t count_w = 0, code_w = 0;
  bool any_fixable = false;
  for (const Stat& s : stats) {
    count_w = std::max(count_w, std::to_string(s.count).size());
    code_w = std::max(code_w, s.code.size());
    any_fixable |= s.fixable;
  }
  for (const Stat& s : stats) {
    out << fmt::format("{:>{}}\t{:<{}}\t{}{}\n", s.count, count_w, s.code, code_w,
                       any_fixable ? (s.fixable ? "[*] " : "[ ] ") : "", rule_name(s.code));
  }
}

void write_summary(std::ostream& out, const SummaryCounts& c, const OutputOptions& o) {
  if (o.quiet) return;
  std::size_t total = c.fixed + c.remaining;
  if (c.fixed > 0) {
    out << fmt::format("Found {} error{} ({} fixed, {} remaining).\n", total, total == 1 ? "" : "s",
                       c.fixed, c.remaining);
  } else if (c.remaining > 0) {
    out << fmt::format("Found {} error{}.\n", c.remaining, c.remaining == 1 ? "" : "s");
  } else {
    out << "All checks passed!\n";
  }
  if (c.fixable > 0 && c.hidden_unsafe > 0) {
    out << fmt::format(
        "[*] {} fixable with the `--fix` option ({} hidden fix{} can be enabled with the "
        "`--unsafe-fixes` option).\n",
        c.fixable, c.hidden_unsafe, c.hidden_unsafe == 1 ? "" : "es");
  } else if (c.fixable > 0) {
    out << fmt::format("[*] {} fixable with the `--fix` option.\n", c.fixable);
  } else if (c.hidden_unsafe > 0) {
    out << fmt::format(
        "No fixes available ({} hidden fix{} can be enabled with the `--unsafe-fixes` option).\n",
        c.hidden_unsafe, c.hidden_unsafe == 1 ? "" : "es");
  }
}

void write_diff_summary(std::ostream& out, const SummaryCounts& c, const OutputOptions& o) {
  if (o.quiet) return;
  if (c.hidden_unsafe > 0) {
    std::string es = c.hidden_unsafe == 1 ? "" : "es";
    if (c.fixed > 0)
      out << fmt::format("Would fix {} error{} ({} additional fix{} available with "
                         "`--unsafe-fixes`).\n",
                         c.fixed, c.fixed == 1 ? "" : "s", c.hidden_unsafe, es);
    else
      out << fmt::format("No errors would be fixed ({} fix{} available with `--unsafe-fixes`).\n",
                         c.hidden_unsafe, es);
  } else if (c.fixed > 0) {
    out << fmt::format("Would fix {} error{}.\n", c.fixed, c.fixed == 1 ? "" : "s");
  }
}

void write_fixed_list(
    std::ostream& out,
    const std::vector<std::pair<std::string, std::map<std::string, uint32_t>>>& fixed) {
  std::size_t total = 0;
  for (const auto& [path, codes] : fixed)
    for (const auto& [code, n] : codes) total += n;
  if (total == 0) return;
  out << fmt::format("Fixed {} error{}:\n", total, total == 1 ? "" : "s");
  for (const auto& [path, codes] : fixed) {
    if (codes.empty()) continue;
    out << "- " << path << ":\n";
    for (const auto& [code, n] : codes)
      out << fmt::format("    {} × {} ({})\n", n, code, rule_name(code));
  }
  out << "\n";
}

// ---------------------------------------------------------------------------------------------
// Rule documentation

std::string_view fix_safety_name(FixSafety f) {
  switch (f) {
    case FixSafety::None: return "none";
    case FixSafety::Safe: return "safe";
    case FixSafety::Unsafe: return "unsafe";
  }
  return "none";
}

namespace {

// Shifts the markdown headings of `doc` (outside code fences) so the shallowest becomes
// `level`.
std::string rebase_headings(std::string_view doc, int level) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos <= doc.size()) {
    std::size_t nl = doc.find('\n', pos);
    lines.push_back(doc.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  auto heading_level = [](std::string_view l) {
    int n = 0;
    while (n < static_cast<int>(l.size()) && l[n] == '#') ++n;
    return (n > 0 && n < static_cast<int>(l.size()) && l[n] == ' ') ? n : 0;
  };
  int min_level = 7;
  bool fence = false;
  for (auto l : lines) {
    if (l.substr(0, 3) == "```") fence = !fence;
    else if (!fence && heading_level(l)) min_level = std::min(min_level, heading_level(l));
  }
  int shift = min_level == 7 ? 0 : level - min_level;
  std::string out;
  fence = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (l.substr(0, 3) == "```") fence = !fence;
    if (!fence && shift != 0 && heading_level(l)) {
      int h = std::clamp(heading_level(l) + shift, 1, 6);
      out.append(std::string(h, '#'));
      out.append(l.substr(heading_level(l)));
    } else {
      out.append(l);
    }
    if (i + 1 < lines.size()) out.push_back('\n');
  }
  return out;
}

std::string trim_trailing_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string languages(const RuleInfo& i) {
  if (i.python && i.cpp) return "Python, C++";
  if (i.cpp) return "C++";
  return "Python";
}

std::string fix_line(FixSafety f) {
  switch (f) {
    case FixSafety::Safe: return "safe (applied by `--fix`)";
    case FixSafety::Unsafe: return "unsafe (applied by `--fix --unsafe-fixes`)";
    case FixSafety::None: return "none";
  }
  return "none";
}

std::string metadata(const RuleInfo& i) {
  return fmt::format("- Summary: {}\n- Severity: {}\n- Languages: {}\n- Fix: {}\n", i.summary,
                     to_string(i.severity), languages(i), fix_line(i.fix));
}

std::string escape_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out.push_back(c);
  }
  return out;
}

}  // namespace

std::string rule_page(const Rule& rule) {
  const RuleInfo& i = rule.info();
  return fmt::format("# {} ({})\n\n{}\n{}\n", i.name, i.code, metadata(i),
                     trim_trailing_newlines(rebase_headings(i.doc, 2)));
}

std::string rules_table() {
  const auto& rules = all_rules();
  std::size_t cw = 4, nw = 4, fw = 3;
  for (const Rule* r : rules) {
    cw = std::max(cw, r->info().code.size());
    nw = std::max(nw, r->info().name.size());
    fw = std::max(fw, fix_safety_name(r->info().fix).size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "CODE", cw, "NAME", nw, "FIX", fw,
                                "SUMMARY");
  for (const Rule* r : rules) {
    const RuleInfo& i = r->info();
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", i.code, cw, i.name, nw,
                       fix_safety_name(i.fix), fw, i.summary);
  }
  return out;
}

std::string rules_markdown() {
  const auto& rules = all_rules();
  std::string out;
  out += "# gpulint rules\n\n";
  out += "<!-- Generated by `gpulint rules --format markdown` (`make docs`). Do not edit: a test "
         "fails when this file is stale. -->\n\n";
  out += fmt::format(
      "{} rules. Codes: `DL` data loading, `DEV` device placement, `MEM` memory, `SYNC` "
      "host-device sync, `PERF` other throughput. *Safe* fixes are applied by `--fix`; "
      "*unsafe* ones also need `--unsafe-fixes`.\n\n",
      rules.size());
  out += "| Code | Name | Fix | Summary |\n| --- | --- | --- | --- |\n";
  for (const Rule* r : rules) {
    const RuleInfo& i = r->info();
    std::string anchor = fmt::format("{}-{}", i.code, i.name);
    for (char& c : anchor) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += fmt::format("| [{}](#{}) | `{}` | {} | {} |\n", i.code, anchor, i.name,
                       fix_safety_name(i.fix), escape_cell(i.summary));
  }
  for (const Rule* r : rules) {
    const RuleInfo& i = r->info();
    out += fmt::format("\n## {}: {}\n\n{}\n{}\n", i.code, i.name, metadata(i),
                       trim_trailing_newlines(rebase_headings(i.doc, 3)));
  }
  return out;
}

}  // namespace gpulint
