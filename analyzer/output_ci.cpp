// CI output formats: json-lines, SARIF 2.1.0, GitHub Actions workflow commands, GitLab Code
// Quality and JUnit XML. See output_ci.h for each format's layout.
#include "analyzer/output_ci.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "analyzer/glob.h"
#include "analyzer/notebook.h"

namespace gpulint {
namespace fs = std::filesystem;

namespace {

constexpr auto kReplaceInvalid = nlohmann::json::error_handler_t::replace;

uint32_t clamp_offset(const SourceFile& src, uint32_t offset) {
  return std::min<uint32_t>(offset, static_cast<uint32_t>(src.text().size()));
}

// 1-based line and code-point column (what the text formats print).
LineCol one_based_codepoint(const SourceFile& src, uint32_t offset) {
  LineCol lc = src.codepoint_position(clamp_offset(src, offset));
  return {lc.line + 1, lc.column + 1};
}

// 1-based line and UTF-16 column (SARIF).
LineCol one_based_utf16(const SourceFile& src, uint32_t offset) {
  LineCol lc = src.utf16_position(clamp_offset(src, offset));
  return {lc.line + 1, lc.column + 1};
}

// Notebooks: module positions do not match the .ipynb file's lines, so the CI formats name
// the cell instead ("cell 4, line 4, column 16", 1-based) and drop raw line numbers.
struct CellWhere {
  uint32_t cell, line, column;  // 1-based
};
std::optional<CellWhere> cell_where(const FileDiagnostics& f, uint32_t offset) {
  if (!f.notebook) return std::nullopt;
  CellPosition p = f.notebook->cell_position(*f.source, clamp_offset(*f.source, offset));
  return CellWhere{p.cell, p.line + 1, p.column + 1};
}
std::string cell_text(const CellWhere& w) {
  return fmt::format("cell {}, line {}, column {}", w.cell, w.line, w.column);
}

std::string_view severity_sarif_level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "note";
  }
  return "warning";
}

// ---------------------------------------------------------------------------------------------
// SARIF

constexpr std::string_view kSrcRoot = "%SRCROOT%";

// "## What it does" section of a rule doc, without its heading, trimmed; the whole doc when
// the section is missing.
std::string what_it_does(std::string_view doc) {
  constexpr std::string_view heading = "## What it does";
  std::size_t h = doc.find(heading);
  if (h == std::string_view::npos) return std::string(doc);
  std::size_t start = doc.find('\n', h);
  if (start == std::string_view::npos) return std::string(doc);
  std::size_t end = doc.find("\n## ", start);
  std::string_view body = doc.substr(start + 1, end == std::string_view::npos ? end : end - start - 1);
  std::size_t b = body.find_first_not_of(" \n");
  std::size_t e = body.find_last_not_of(" \n");
  if (b == std::string_view::npos) return std::string(doc);
  return std::string(body.substr(b, e - b + 1));
}

// SARIF messages are sentences (validator rule SARIF2001): end with a period.
std::string sentence(std::string_view message) {
  std::string s(message);
  if (!s.empty() && s.back() != '.' && s.back() != '!' && s.back() != '?') s.push_back('.');
  return s;
}

// artifactLocation of a file: relative to %SRCROOT% when below cwd, else an absolute URI.
nlohmann::json artifact_location(std::string_view path, const fs::path& cwd) {
  if (path == "-" || path.empty()) return {{"uri", "-"}};
  fs::path abs = absolute_normal(fs::path(path), cwd);
  if (auto rel = relative_under(abs, cwd); rel && !rel->empty())
    return {{"uri", uri_encode_path(*rel)}, {"uriBaseId", kSrcRoot}};
  return {{"uri", "file://" + uri_encode_path(abs.string())}};
}

nlohmann::json region(const SourceFile& src, uint32_t start, uint32_t end) {
  end = std::max(start, end);
  LineCol s = one_based_utf16(src, start), e = one_based_utf16(src, end);
  return {{"startLine", s.line}, {"startColumn", s.column}, {"endLine", e.line},
          {"endColumn", e.column}};
}

// The whole lines the range [start, end) touches, with their text (SARIF contextRegion).
nlohmann::json context_region(const SourceFile& src, uint32_t start, uint32_t end) {
  uint32_t first = src.line_of(clamp_offset(src, start));
  uint32_t last = src.line_of(clamp_offset(src, std::max(start, end)));
  uint32_t from = src.line_start(first);
  std::string_view last_text = src.line_text(last);
  uint32_t to = src.line_start(last) + static_cast<uint32_t>(last_text.size());
  nlohmann::json r = region(src, from, to);
  r["snippet"] = {{"text", std::string(src.text().substr(from, to - from))}};
  return r;
}

nlohmann::json sarif_rule(const Rule& rule) {
  const RuleInfo& i = rule.info();
  std::string family;
  for (char c : i.code)
    if (std::isalpha(static_cast<unsigned char>(c))) family.push_back(c);
  return {
      {"id", std::string(i.code)},
      {"name", std::string(i.name)},
      {"shortDescription", {{"text", sentence(i.summary)}}},
      {"fullDescription", {{"text", what_it_does(i.doc)}}},
      {"help", {{"text", std::string(i.doc)}, {"markdown", std::string(i.doc)}}},
      {"helpUri", rule_url(i.code)},
      {"defaultConfiguration", {{"level", severity_sarif_level(i.severity)}}},
      {"properties",
       {{"tags", nlohmann::json::array({"performance", family})},
        {"fixSafety", std::string(fix_safety_name(i.fix))}}},
  };
}

nlohmann::json sarif_fix(const SourceFile& src, const Fix& fix, const nlohmann::json& location) {
  std::vector<Edit> edits = fix.edits;
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.start < b.start; });
  nlohmann::json replacements = nlohmann::json::array();
  for (const Edit& e : edits)
    replacements.push_back(
        {{"deletedRegion", region(src, e.start, e.end)}, {"insertedContent", {{"text", e.content}}}});
  std::string text = fix.message.empty() ? "Apply the fix" : fix.message;
  if (fix.applicability == Applicability::Unsafe)
    text += " (unsafe: `gpulint check --fix --unsafe-fixes` applies it)";
  return {{"description", {{"text", sentence(text)}}},
          {"artifactChanges", nlohmann::json::array({{{"artifactLocation", location}, {"replacements", replacements}}})},
          {"properties", {{"applicability", std::string(to_string(fix.applicability))}}}};
}

// ---------------------------------------------------------------------------------------------
// GitHub workflow commands: the escaping of @actions/core (toCommandValue / escapeProperty).

std::string escape_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out.push_back(c);
  }
  return out;
}

std::string escape_property(std::string_view s) {
  std::string out;
  for (char c : escape_data(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out.push_back(c);
  }
  return out;
}

std::string_view github_command(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "notice";
  }
  return "warning";
}

// ---------------------------------------------------------------------------------------------
// XML (JUnit)

// Escapes for XML 1.0 text and attribute values; characters XML cannot hold (controls other
// than tab/newline/CR) and invalid UTF-8 bytes become U+FFFD.
std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\t': out += "&#9;"; break;
        case '\n': out += "&#10;"; break;
        case '\r': out += "&#13;"; break;
        default:
          if (c < 0x20 || c == 0x7F) out += "\xEF\xBF\xBD";
          else out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    std::size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    std::string_view seq = len && i + len <= s.size() ? s.substr(i, len) : std::string_view{};
    if (!seq.empty() && !find_invalid_utf8(seq)) {
      out.append(seq);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string uri_encode_path(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
      out.push_back(static_cast<char>(c));
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

uint64_t fnv1a64(std::string_view bytes, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

void write_json_lines(std::ostream& out, const std::vector<FileDiagnostics>& files,
                      const OutputOptions& o) {
  for (const auto& f : files) {
    if (!f.source || !f.diagnostics) continue;
    std::string filename = absolute_path(f.path, o.cwd);
    for (const Diagnostic& d : *f.diagnostics)
      out << diagnostic_to_json(*f.source, d, filename, f.notebook).dump(-1, ' ', false, kReplaceInvalid)
          << "\n";
  }
}

void write_sarif(std::ostream& out, const std::vector<FileDiagnostics>& files,
                 const OutputOptions& o) {
  nlohmann::json rules = nlohmann::json::array();
  std::map<std::string, std::size_t> rule_index;
  for (const Rule* r : all_rules()) {
    rule_index[std::string(r->info().code)] = rules.size();
    rules.push_back(sarif_rule(*r));
  }

  nlohmann::json results = nlohmann::json::array();
  for (const auto& f : files) {
    if (!f.source || !f.diagnostics) continue;
    nlohmann::json location = artifact_location(f.path, o.cwd);
    for (const Diagnostic& d : *f.diagnostics) {
      nlohmann::json r;
      r["ruleId"] = d.code;
      if (auto it = rule_index.find(d.code); it != rule_index.end()) r["ruleIndex"] = it->second;
      r["level"] = severity_sarif_level(d.severity);
      if (auto w = cell_where(f, d.start)) {
        // No region: the notebook's JSON lines are not the cell's lines.
        r["message"] = {{"text", cell_text(*w) + ": " + sentence(d.message)}};
        r["locations"] = nlohmann::json::array({{{"physicalLocation", {{"artifactLocation", location}}}}});
        r["properties"] = {{"cell", w->cell}, {"cellLine", w->line}, {"cellColumn", w->column}};
        if (d.confidence == Confidence::Low) r["properties"]["confidence"] = "low";
        results.push_back(std::move(r));
        continue;
      }
      r["message"] = {{"text", sentence(d.message)}};
      nlohmann::json physical = {{"artifactLocation", location},
                                 {"region", region(*f.source, d.start, d.end)},
                                 {"contextRegion", context_region(*f.source, d.start, d.end)}};
      physical["region"]["snippet"] = {{"text", std::string(f.source->text().substr(
                                            clamp_offset(*f.source, d.start),
                                            clamp_offset(*f.source, std::max(d.start, d.end)) -
                                                clamp_offset(*f.source, d.start)))}};
      r["locations"] = nlohmann::json::array({{{"physicalLocation", std::move(physical)}}});
      if (d.fix && !d.fix->edits.empty() && d.fix->applicability != Applicability::DisplayOnly)
        r["fixes"] = nlohmann::json::array({sarif_fix(*f.source, *d.fix, location)});
      if (d.confidence == Confidence::Low) r["properties"] = {{"confidence", "low"}};
      results.push_back(std::move(r));
    }
  }

  std::string root_uri = "file://" + uri_encode_path(o.cwd.string());
  if (root_uri.back() != '/') root_uri.push_back('/');
  nlohmann::json run = {
      {"tool",
       {{"driver",
         {{"name", "gpulint"},
          {"fullName", "gpulint: GPU utilisation linter for PyTorch training code"},
          {"version", GPULINT_VERSION},
          {"semanticVersion", GPULINT_VERSION},
          {"informationUri", "https://gpulint.dev"},
          {"rules", std::move(rules)}}}}},
      {"originalUriBaseIds",
       {{std::string(kSrcRoot),
         {{"uri", root_uri},
          {"description", {{"text", "The directory gpulint ran in."}}}}}}},
      {"columnKind", "utf16CodeUnits"},
      {"results", std::move(results)},
  };
  nlohmann::json log = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", nlohmann::json::array({std::move(run)})},
  };
  out << log.dump(2, ' ', false, kReplaceInvalid) << "\n";
}

void write_github(std::ostream& out, const std::vector<FileDiagnostics>& files,
                  const OutputOptions& o) {
  for (const auto& f : files) {
    if (!f.source || !f.diagnostics) continue;
    std::string abs = absolute_path(f.path, o.cwd);
    std::string shown = display_path(f.path, o.cwd);
    for (const Diagnostic& d : *f.diagnostics) {
      if (f.notebook) {
        // A file-level annotation: the .ipynb's JSON lines are not the cell's lines.
        out << fmt::format("::{} title={},file={}::", github_command(d.severity),
                           escape_property("gpulint (" + d.code + ")"), escape_property(abs))
            << escape_data(fmt::format("{}: {} {}",
                                       location_text(shown, *f.source, f.notebook, d.start),
                                       d.code, d.message))
            << "\n";
        continue;
      }
      LineCol s = one_based_codepoint(*f.source, d.start);
      LineCol e = one_based_codepoint(*f.source, std::max(d.start, d.end));
      out << fmt::format("::{} title={},file={},line={},col={},endLine={},endColumn={}::",
                         github_command(d.severity), escape_property("gpulint (" + d.code + ")"),
                         escape_property(abs), s.line, s.column, e.line, e.column)
          << escape_data(fmt::format("{}: {} {}",
                                     location_text(shown, *f.source, nullptr, d.start), d.code,
                                     d.message))
          << "\n";
    }
  }
}

void write_gitlab(std::ostream& out, const std::vector<FileDiagnostics>& files,
                  const OutputOptions& o) {
  fs::path project = o.project_dir.empty() ? o.cwd : o.project_dir;
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& f : files) {
    if (!f.source || !f.diagnostics) continue;
    std::string path = f.path;
    if (path != "-" && !path.empty()) {
      fs::path abs = absolute_normal(fs::path(f.path), o.cwd);
      fs::path rel = abs.lexically_relative(project);
      path = rel.empty() ? abs.string() : rel.generic_string();
    }
    std::map<uint64_t, uint32_t> seen;  // base hash → occurrences so far in this file
    for (const Diagnostic& d : *f.diagnostics) {
      uint32_t s = clamp_offset(*f.source, d.start), e = clamp_offset(*f.source, d.end);
      std::string_view flagged = f.source->text().substr(s, e > s ? e - s : 0);
      uint64_t h = fnv1a64(d.code);
      for (std::string_view part : {std::string_view(path), std::string_view(d.message), flagged}) {
        h = fnv1a64(std::string_view("\0", 1), h);
        h = fnv1a64(part, h);
      }
      uint32_t occurrence = seen[h]++;
      if (occurrence > 0) h = fnv1a64(fmt::format("#{}", occurrence), h);
      std::string_view severity = d.severity == Severity::Error     ? "critical"
                                  : d.severity == Severity::Warning ? "major"
                                                                    : "minor";
      auto w = cell_where(f, d.start);
      // GitLab needs a line: for a notebook, line 1 of the file, with the cell in the text.
      uint32_t begin = w ? 1 : one_based_codepoint(*f.source, d.start).line;
      uint32_t end = w ? 1 : one_based_codepoint(*f.source, std::max(d.start, d.end)).line;
      arr.push_back({
          {"check_name", d.code},
          {"description", d.code + ": " + (w ? cell_text(*w) + ": " : std::string()) + d.message},
          {"fingerprint", fmt::format("{:016x}", h)},
          {"severity", severity},
          {"categories", nlohmann::json::array({"Performance"})},
          {"location",
           {{"path", path},
            {"lines", {{"begin", begin}, {"end", end}}}}},
      });
    }
  }
  out << arr.dump(2, ' ', false, kReplaceInvalid) << "\n";
}

void write_junit(std::ostream& out, const std::vector<FileDiagnostics>& files,
                 const OutputOptions& o) {
  std::size_t total = 0;
  for (const auto& f : files)
    if (f.source && f.diagnostics) total += f.diagnostics->size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  if (total == 0) {
    out << "<testsuites name=\"gpulint\" tests=\"1\" failures=\"0\" errors=\"0\">\n"
           "    <testsuite name=\"gpulint\" tests=\"1\" disabled=\"0\" errors=\"0\" "
           "failures=\"0\" package=\"org.gpulint\">\n"
           "        <testcase name=\"No errors found\"/>\n"
           "    </testsuite>\n"
           "</testsuites>\n";
    return;
  }
  out << fmt::format("<testsuites name=\"gpulint\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
                     total, total);
  for (const auto& f : files) {
    if (!f.source || !f.diagnostics || f.diagnostics->empty()) continue;
    std::string shown = display_path(f.path, o.cwd);
    fs::path p(shown);
    std::string classname = (p.parent_path() / p.stem()).generic_string();
    std::size_t n = f.diagnostics->size();
    out << fmt::format(
        "    <testsuite name=\"{}\" tests=\"{}\" disabled=\"0\" errors=\"0\" failures=\"{}\" "
        "package=\"org.gpulint\">\n",
        xml_escape(shown), n, n);
    for (const Diagnostic& d : *f.diagnostics) {
      if (auto w = cell_where(f, d.start)) {
        // No line attribute: the .ipynb's lines are not the cell's lines.
        out << fmt::format(
            "        <testcase name=\"org.gpulint.{}\" classname=\"{}\">\n"
            "            <failure message=\"{}\">{}, {}</failure>\n"
            "        </testcase>\n",
            xml_escape(d.code), xml_escape(classname), xml_escape(d.message), cell_text(*w),
            xml_escape(d.message));
        continue;
      }
      LineCol s = one_based_codepoint(*f.source, d.start);
      out << fmt::format(
          "        <testcase name=\"org.gpulint.{}\" classname=\"{}\" line=\"{}\" "
          "column=\"{}\">\n"
          "            <failure message=\"{}\">line {}, col {}, {}</failure>\n"
          "        </testcase>\n",
          xml_escape(d.code), xml_escape(classname), s.line, s.column, xml_escape(d.message),
          s.line, s.column, xml_escape(d.message));
    }
    out << "    </testsuite>\n";
  }
  out << "</testsuites>\n";
}

}  // namespace gpulint
