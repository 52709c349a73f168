#include "analyzer/audit_report.h"
#include "analyzer/html.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzer/output.h"
#include "analyzer/rule.h"

namespace gpulint::audit {

namespace {


std::string grouped(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string location(const Finding& f) {
  if (f.cell) return fmt::format("{}:cell {}:{}:{}", f.path, f.cell, f.line, f.column);
  return fmt::format("{}:{}:{}", f.path, f.line, f.column);
}

std::string severity_of_rule(const std::string& code) {
  const Rule* r = find_rule(code);
  return r ? std::string(to_string(r->info().severity)) : "";
}

// Rules found, most findings first.
std::vector<std::pair<std::size_t, std::string>> ranked_rules(const AuditCounts& c) {
  std::vector<std::pair<std::size_t, std::string>> v;
  for (const auto& [code, n] : c.by_rule) v.emplace_back(n, code);
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return v;
}

std::size_t analysed_files(const AuditResult& r) {
  return r.python_files + r.notebooks + r.cpp_analysed;
}

// A horizontal bar chart in SVG: one labelled bar per (count, label), longest first.
std::string bar_chart(const std::string& id, const std::string& title,
                      const std::vector<std::pair<std::size_t, std::string>>& rows, std::size_t limit) {
  const int label_w = 300, bar_w = 420, row_h = 26, top = 8;
  std::size_t n = std::min(rows.size(), limit);
  std::size_t max = 1;
  for (std::size_t i = 0; i < n; ++i) max = std::max(max, rows[i].first);
  int height = top * 2 + static_cast<int>(n) * row_h;
  std::string svg = fmt::format(
      "<svg id=\"{}\" class=\"chart\" role=\"img\" aria-label=\"{}\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" xmlns=\"http://www.w3.org/2000/svg\">\n<title>{}</title>\n",
      id, html_escape(title), label_w + bar_w + 70, height, label_w + bar_w + 70, height, html_escape(title));
  for (std::size_t i = 0; i < n; ++i) {
    int y = top + static_cast<int>(i) * row_h;
    int w = std::max(2, static_cast<int>(static_cast<double>(rows[i].first) / static_cast<double>(max) * bar_w));
    std::string label = rows[i].second;
    if (label.size() > 44) label = "…" + label.substr(label.size() - 43);
    svg += fmt::format(
        "<g class=\"bar\" data-label=\"{}\" data-count=\"{}\"><text x=\"{}\" y=\"{}\" "
        "text-anchor=\"end\" class=\"label\">{}</text><rect x=\"{}\" y=\"{}\" width=\"{}\" "
        "height=\"{}\" rx=\"3\"/><text x=\"{}\" y=\"{}\" class=\"count\">{}</text></g>\n",
        html_escape(rows[i].second), rows[i].first, label_w - 8, y + 17, html_escape(label), label_w, y + 3, w,
        row_h - 8, label_w + w + 6, y + 17, grouped(rows[i].first));
  }
  svg += "</svg>\n";
  return svg;
}

std::string diff_html(const std::string& diff) {
  std::string out;
  std::size_t pos = 0;
  while (pos < diff.size()) {
    std::size_t nl = diff.find('\n', pos);
    std::string_view line(diff.data() + pos, (nl == std::string::npos ? diff.size() : nl) - pos);
    const char* cls = line.rfind("@@", 0) == 0 ? "hunk"
                      : !line.empty() && line[0] == '-' ? "del"
                      : !line.empty() && line[0] == '+' ? "ins" : "ctx";
    out += fmt::format("<span class=\"{}\">{}</span>", cls, html_escape(line));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

constexpr const char* kCss = R"css(
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#f6f8fa; --accent:#0969da;
        --err:#cf222e; --warn:#9a6700; --info:#0969da; --del:#ffebe9; --ins:#dafbe1; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
       margin: 0 auto; max-width: 1200px; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 32px 0 8px; }
.sub { color: var(--muted); margin: 0 0 16px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; background: var(--bg); }
.card .n { font-size: 26px; font-weight: 600; } .card .k { color: var(--muted); }
.chart { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 8px; }
.chart rect { fill: var(--accent); } .chart .label { font-size: 13px; fill: var(--fg); }
.chart .count { font-size: 12px; fill: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
th { background: var(--bg); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font: 12px/1.45 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { margin: 4px 0; padding: 6px 8px; background: var(--bg); border-radius: 6px; overflow-x: auto; }
pre.diff span { display: block; white-space: pre; } pre.diff .del { background: var(--del); }
pre.diff .ins { background: var(--ins); } pre.diff .hunk { color: var(--muted); }
#findings { table-layout: fixed; } #findings th:nth-child(1) { width: 26%; }
#findings th:nth-child(2) { width: 9%; } #findings td:first-child code { word-break: break-all; }
#findings pre { max-width: 100%; }
.sev-error { color: var(--err); font-weight: 600; } .sev-warning { color: var(--warn); font-weight: 600; }
.sev-info { color: var(--info); } .note { color: var(--muted); }
a { color: var(--accent); }
)css";

}  // namespace

std::string html_report(const AuditResult& r, std::size_t top) {
  AuditCounts c = count_findings(r);
  auto rules = ranked_rules(c);
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>gpulint audit</title>\n<style>";
  h += kCss;
  h += "</style>\n</head>\n<body>\n";
  std::vector<std::string> roots;
  for (const auto& x : r.roots) roots.push_back(html_escape(x));
  h += fmt::format("<h1>gpulint audit</h1>\n<p class=\"sub\">{} — gpulint {}</p>\n",
                   fmt::join(roots, ", "), GPULINT_VERSION);

  double lps = r.seconds > 0 ? static_cast<double>(r.lines) / r.seconds : 0;
  h += "<section class=\"cards\" id=\"summary\">\n";
  auto card = [&h](const std::string& id, const std::string& n, const std::string& k) {
    h += fmt::format("<div class=\"card\" id=\"card-{}\"><div class=\"n\">{}</div><div class=\"k\">{}</div></div>\n",
                     id, n, k);
  };
  card("files", grouped(analysed_files(r)),
       fmt::format("files ({} Python, {} notebooks{})", grouped(r.python_files), grouped(r.notebooks),
                   r.cpp_files ? fmt::format(", {} C++ found", grouped(r.cpp_files)) : ""));
  card("lines", grouped(r.lines), "lines");
  card("time", fmt::format("{:.2f} s", r.seconds), fmt::format("{} lines/s, {} threads", grouped(static_cast<uint64_t>(lps)), r.threads));
  card("findings", grouped(r.findings.size()), "findings");
  for (const char* s : {"error", "warning", "info"}) {
    auto it = c.by_severity.find(s);
    card(s, grouped(it == c.by_severity.end() ? 0 : it->second), s);
  }
  h += "</section>\n";
  if (!r.cpp_note.empty())
    h += fmt::format("<p class=\"note\" id=\"cpp-note\">C++: {} files ({}): {}</p>\n", grouped(r.cpp_files),
                     html_escape(r.cpp_source), html_escape(r.cpp_note));
  if (!r.errors.empty()) {
    h += fmt::format("<details><summary>{} files could not be read</summary><ul>\n", grouped(r.errors.size()));
    for (const auto& e : r.errors) h += fmt::format("<li><code>{}</code></li>\n", html_escape(e));
    h += "</ul></details>\n";
  }

  h += "<h2>Findings per rule</h2>\n";
  std::vector<std::pair<std::size_t, std::string>> rule_rows;
  for (const auto& [n, code] : rules) rule_rows.emplace_back(n, code + " " + rule_name(code));
  h += bar_chart("chart-rules", "Findings per rule", rule_rows, rule_rows.size());
  h += "<h2>Findings per directory</h2>\n";
  h += bar_chart("chart-dirs", "Findings per directory", c.directories, top);

  h += "<h2>Rules</h2>\n<table id=\"rules\">\n<thead><tr><th>rule</th><th>name</th><th>severity</th>"
       "<th class=\"num\">findings</th><th>what each costs (measured)</th></tr></thead>\n<tbody>\n";
  for (const auto& [n, code] : rules) {
    std::string sev = severity_of_rule(code);
    h += fmt::format(
        "<tr data-code=\"{0}\"><td><a href=\"{1}\">{0}</a></td><td>{2}</td><td class=\"sev-{3}\">{3}</td>"
        "<td class=\"num count\">{4}</td><td>{5}</td></tr>\n",
        html_escape(code), html_escape(rule_url(code)), html_escape(rule_name(code)), html_escape(sev), n, html_escape(measured_cost(code)));
  }
  h += "</tbody>\n</table>\n";

  h += "<h2>Top files</h2>\n<table id=\"top-files\">\n<thead><tr><th class=\"num\">findings</th><th>file</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < c.files.size() && i < top; ++i)
    h += fmt::format("<tr><td class=\"num\">{}</td><td><code>{}</code></td></tr>\n", c.files[i].first,
                     html_escape(c.files[i].second));
  h += "</tbody>\n</table>\n";

  h += fmt::format("<h2>All findings ({})</h2>\n", grouped(r.findings.size()));
  h += "<table id=\"findings\">\n<thead><tr><th>location</th><th>rule</th><th>finding</th></tr></thead>\n<tbody>\n";
  for (const Finding& f : r.findings) {
    std::string sev(to_string(f.severity));
    h += fmt::format("<tr class=\"finding\" data-code=\"{}\"><td><code>{}</code></td>", html_escape(f.code), html_escape(location(f)));
    h += fmt::format("<td><a href=\"{}\">{}</a><br><span class=\"sev-{}\">{}</span></td>", html_escape(rule_url(f.code)),
                     html_escape(f.code), html_escape(sev), html_escape(sev));
    h += fmt::format("<td>{}<pre class=\"snippet\">{}</pre>", html_escape(f.message), html_escape(f.snippet));
    if (!f.fix_diff.empty())
      h += fmt::format("<div class=\"fix\">Fix ({}): {}</div><pre class=\"diff\">{}</pre>", html_escape(f.fix_applicability),
                       html_escape(f.fix_message), diff_html(f.fix_diff));
    h += "</td></tr>\n";
  }
  h += "</tbody>\n</table>\n";
  h += "<p class=\"note\">Rule documentation: <code>gpulint rule CODE</code>, or the links above.</p>\n";
  h += "</body>\n</html>\n";
  return h;
}

std::string json_report(const AuditResult& r, std::size_t top) {
  using nlohmann::json;
  AuditCounts c = count_findings(r);
  json j;
  j["tool"] = "gpulint";
  j["version"] = GPULINT_VERSION;
  j["roots"] = r.roots;
  j["summary"] = {{"files", analysed_files(r)},
                  {"python_files", r.python_files},
                  {"notebooks", r.notebooks},
                  {"cpp_files", r.cpp_files},
                  {"cpp_analysed", r.cpp_analysed},
                  {"cpp_note", r.cpp_note},
                  {"cpp_source", r.cpp_source},
                  {"lines", r.lines},
                  {"bytes", r.bytes},
                  {"seconds", r.seconds},
                  {"threads", r.threads},
                  {"syntax_errors", r.syntax_errors},
                  {"findings", r.findings.size()}};
  j["by_severity"] = c.by_severity;
  json rules = json::array();
  for (const auto& [n, code] : ranked_rules(c))
    rules.push_back({{"code", code}, {"name", rule_name(code)}, {"severity", severity_of_rule(code)},
                     {"count", n}, {"url", rule_url(code)}, {"measured_cost", measured_cost(code)}});
  j["rules"] = std::move(rules);
  auto top_list = [top](const std::vector<std::pair<std::size_t, std::string>>& v) {
    json a = json::array();
    for (std::size_t i = 0; i < v.size() && i < top; ++i) a.push_back({{"path", v[i].second}, {"findings", v[i].first}});
    return a;
  };
  j["top_files"] = top_list(c.files);
  j["top_directories"] = top_list(c.directories);
  j["errors"] = r.errors;
  json findings = json::array();
  for (const Finding& f : r.findings) {
    json x = {{"path", f.path},
              {"cell", f.cell ? json(f.cell) : json(nullptr)},
              {"line", f.line},
              {"column", f.column},
              {"code", f.code},
              {"name", rule_name(f.code)},
              {"severity", std::string(to_string(f.severity))},
              {"message", f.message},
              {"snippet", f.snippet},
              {"url", rule_url(f.code)}};
    if (f.fix_message.empty() && f.fix_diff.empty())
      x["fix"] = nullptr;
    else
      x["fix"] = {{"message", f.fix_message}, {"applicability", f.fix_applicability}, {"diff", f.fix_diff}};
    findings.push_back(std::move(x));
  }
  j["findings"] = std::move(findings);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string markdown_report(const AuditResult& r, std::size_t top) {
  AuditCounts c = count_findings(r);
  auto cell = [](std::string_view s) {
    std::string out;
    for (char ch : s) {
      if (ch == '|') out += "\\|";
      else if (ch == '\n') out += ' ';
      else out.push_back(ch);
    }
    return out;
  };
  std::string m;
  m += fmt::format("## gpulint audit of `{}`\n\n", fmt::join(r.roots, "`, `"));
  m += fmt::format("{} files ({} Python, {} notebooks), {} lines, {:.2f} s; **{} findings**",
                   grouped(analysed_files(r)), grouped(r.python_files), grouped(r.notebooks), grouped(r.lines),
                   r.seconds, grouped(r.findings.size()));
  std::vector<std::string> sev;
  for (const char* s : {"error", "warning", "info"}) {
    auto it = c.by_severity.find(s);
    if (it != c.by_severity.end()) sev.push_back(fmt::format("{} {}", it->second, s));
  }
  if (!sev.empty()) m += fmt::format(" ({})", fmt::join(sev, ", "));
  m += ".\n\n";
  if (!r.cpp_note.empty()) m += fmt::format("C++: {} files ({}): {}.\n\n", r.cpp_files, r.cpp_source, r.cpp_note);
  if (!r.errors.empty()) m += fmt::format("{} files could not be read.\n\n", r.errors.size());
  if (r.findings.empty()) return m + "No findings.\n";
  m += "| rule | name | severity | findings | what each costs (measured) |\n|---|---|---|---:|---|\n";
  for (const auto& [n, code] : ranked_rules(c))
    m += fmt::format("| [{}]({}) | {} | {} | {} | {} |\n", code, rule_url(code), rule_name(code),
                     severity_of_rule(code), n, cell(measured_cost(code)));
  m += "\n**Top files**\n\n| findings | file |\n|---:|---|\n";
  for (std::size_t i = 0; i < c.files.size() && i < top; ++i)
    m += fmt::format("| {} | `{}` |\n", c.files[i].first, cell(c.files[i].second));
  m += "\n**Top directories**\n\n| findings | directory |\n|---:|---|\n";
  for (std::size_t i = 0; i < c.directories.size() && i < top; ++i)
    m += fmt::format("| {} | `{}/` |\n", c.directories[i].first, cell(c.directories[i].second));
  constexpr std::size_t kShown = 100;
  m += "\n<details><summary>Findings</summary>\n\n";
  for (std::size_t i = 0; i < r.findings.size() && i < kShown; ++i) {
    const Finding& f = r.findings[i];
    m += fmt::format("- `{}` **{}** {}\n", location(f), f.code, f.message);
    if (!f.fix_diff.empty()) {
      m += "  ```diff\n";
      std::size_t pos = 0;
      while (pos < f.fix_diff.size()) {
        std::size_t nl = f.fix_diff.find('\n', pos);
        m += "  " + f.fix_diff.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos) + "\n";
        if (nl == std::string::npos) break;
        pos = nl + 1;
      }
      m += "  ```\n";
    }
  }
  if (r.findings.size() > kShown)
    m += fmt::format("\n… and {} more (see the JSON or HTML report).\n", r.findings.size() - kShown);
  m += "\n</details>\n";
  return m;
}

}  // namespace gpulint::audit
