// gpulint audit: discovery of Python, notebooks and C++ (by extension or compile_commands.json),
// streamed counting, the summary, the three reports and the command line.
#include "analyzer/audit.h"

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <sstream>

#include "analyzer/audit_report.h"
#include "analyzer/rule.h"
#include "tests/test_util.h"

namespace gpulint::audit {
namespace {

using gpulint::testing::read_file;
using gpulint::testing::run_gpulint;
using gpulint::testing::TempDir;

const char* kTrain =
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "loader = DataLoader(ds, batch_size=64)\n"
    "model = Net().cuda()\n"
    "losses = []\n"
    "for x, y in loader:\n"
    "    x = x.cuda()\n"
    "    loss = model(x).sum()\n"
    "    loss.backward()\n"
    "    losses.append(loss)\n";  // DL001, DL002, MEM001 (10 lines)

// A tree: two training scripts, a clean file, a notebook, C++ sources, an ignored file.
void make_tree(const TempDir& d) {
  d.write("proj/train.py", kTrain);
  d.write("proj/sub/train2.py", kTrain);
  d.write("proj/util.py", "def f():\n    return 1\n");
  d.write("proj/nb/explore.ipynb", read_file(std::string(GPULINT_SOURCE_DIR) +
                                             "/fixtures/notebooks/cifar_finetune.ipynb"));
  d.write("proj/csrc/kernel.cpp", "int main() { return 0; }\n");
  d.write("proj/csrc/kernel.h", "#pragma once\n");
  d.write("proj/.gitignore", "ignored/\n");
  d.write("proj/ignored/train3.py", kTrain);
}

AuditResult audit_of(const std::filesystem::path& cwd, std::vector<std::string> paths, unsigned threads = 2) {
  AuditOptions o;
  o.paths = std::move(paths);
  o.threads = threads;
  std::ostringstream progress;
  return run_audit(o, cwd, false, progress);
}

TEST(Audit, MeasuredCostComesFromEveryRuleDoc) {
  for (const Rule* r : all_rules()) {
    std::string cost = measured_cost(r->info().code);
    EXPECT_FALSE(cost.empty()) << r->info().code;
    EXPECT_EQ(cost.find('\n'), std::string::npos);
    EXPECT_EQ(cost.find("##"), std::string::npos);
  }
  EXPECT_NE(measured_cost("DL001").find("4.3×"), std::string::npos);
  EXPECT_EQ(measured_cost("XX999"), "");
}

TEST(Audit, ProgressLine) {
  EXPECT_EQ(progress_line(0, 10, 0.0, 10), "[          ] 0/10 files  0 files/s  0.0 s");
  EXPECT_EQ(progress_line(5, 10, 2.0, 10), "[#####     ] 5/10 files  3 files/s  2.0 s");
  EXPECT_EQ(progress_line(12345, 12345, 1.5, 4), "[####] 12,345/12,345 files  8,230 files/s  1.5 s");
  EXPECT_EQ(progress_line(0, 0, 0.0, 4), "[####] 0/0 files  0 files/s  0.0 s");
}

TEST(Audit, CountsFilesLinesFindingsAndCpp) {
  TempDir d;
  make_tree(d);
  AuditResult r = audit_of(d.path(), {"proj"});
  EXPECT_EQ(r.python_files, 3u);  // ignored/ is .gitignored
  EXPECT_EQ(r.notebooks, 1u);
  EXPECT_EQ(r.cpp_files, 2u);
  EXPECT_EQ(r.cpp_analysed, 0u);
  EXPECT_EQ(r.cpp_source, "file extensions");
  EXPECT_EQ(r.cpp_note, "C++ files found, not analysed: this build has no C++ front end");
  EXPECT_EQ(r.lines, 10u + 10u + 2u + 31u);  // the notebook's cell lines
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.findings.size(), 3u + 3u + 3u);
  AuditCounts c = count_findings(r);
  EXPECT_EQ(c.by_rule.at("DL001"), 3u);
  EXPECT_EQ(c.by_rule.at("DL002"), 3u);
  EXPECT_EQ(c.by_rule.at("MEM001"), 3u);
  EXPECT_EQ(c.by_severity.at("warning"), 9u);
  ASSERT_EQ(c.files.size(), 3u);
  ASSERT_EQ(c.directories.size(), 3u);
  EXPECT_EQ(c.directories[0].first, 3u);
  // Sorted by path; notebook findings carry their cell.
  EXPECT_EQ(r.findings[0].path, "proj/nb/explore.ipynb");
  EXPECT_EQ(r.findings[0].cell, 4u);
  EXPECT_EQ(r.findings[0].line, 4u);
  EXPECT_EQ(r.findings[0].column, 16u);
  const Finding& mem = r.findings.back();
  EXPECT_EQ(mem.path, "proj/train.py");
  EXPECT_EQ(mem.code, "MEM001");
  EXPECT_EQ(mem.cell, 0u);
  EXPECT_EQ(mem.line, 10u);
  EXPECT_EQ(mem.snippet, "    losses.append(loss)");
  EXPECT_EQ(mem.fix_applicability, "safe");
  EXPECT_EQ(mem.fix_diff, "@@ line 10 @@\n-    losses.append(loss)\n+    losses.append(loss.detach())\n");
  // DL001's fix adds an import far from the call: two hunks.
  auto dl001 = std::find_if(r.findings.begin(), r.findings.end(),
                            [](const Finding& f) { return f.path == "proj/train.py" && f.code == "DL001"; });
  ASSERT_NE(dl001, r.findings.end());
  EXPECT_EQ(dl001->fix_diff.rfind("@@ line 1 @@\n+import os\n@@ line 3 @@\n-loader = DataLoader(ds, batch_size=64)\n+loader = ", 0), 0u)
      << dl001->fix_diff;
  auto nb_dl001 = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return f.code == "DL001" && f.cell != 0;
  });
  ASSERT_NE(nb_dl001, r.findings.end());
  EXPECT_EQ(nb_dl001->fix_diff.rfind("@@ cell 2 line 3 @@\n+import os\n@@ cell 4 line 4 @@\n", 0), 0u)
      << nb_dl001->fix_diff;
}

TEST(Audit, SameResultWhateverTheThreadCount) {
  TempDir d;
  make_tree(d);
  AuditResult one = audit_of(d.path(), {"proj"}, 1);
  AuditResult four = audit_of(d.path(), {"proj"}, 4);
  ASSERT_EQ(one.findings.size(), four.findings.size());
  for (std::size_t i = 0; i < one.findings.size(); ++i) {
    EXPECT_EQ(one.findings[i].path, four.findings[i].path);
    EXPECT_EQ(one.findings[i].line, four.findings[i].line);
    EXPECT_EQ(one.findings[i].code, four.findings[i].code);
  }
  EXPECT_EQ(one.lines, four.lines);
  EXPECT_EQ(json_report(one, 10).substr(0, 50), json_report(four, 10).substr(0, 50));
}

TEST(Audit, CompileCommandsDecideTheCppFiles) {
  TempDir d;
  make_tree(d);
  d.write("proj/csrc/other.cc", "int g() { return 1; }\n");
  std::string dir = (d.path() / "proj" / "csrc").string();
  d.write("proj/build/compile_commands.json",
          "[{\"directory\": \"" + dir + "\", \"file\": \"kernel.cpp\", \"command\": \"c++ -c kernel.cpp\"},"
          " {\"directory\": \"" + dir + "\", \"file\": \"missing.cpp\", \"command\": \"c++ -c missing.cpp\"},"
          " {\"directory\": \"/elsewhere\", \"file\": \"/elsewhere/x.cpp\", \"command\": \"c++\"}]");
  AuditResult r = audit_of(d.path(), {"proj"});
  // kernel.cpp: in the database, present, under proj/; kernel.h: a header under proj/ (no
  // database entry: analysed with an interpolated command), other.cc: not in the database.
  EXPECT_EQ(r.cpp_files, 2u);
  EXPECT_NE(r.cpp_source.find("compile_commands.json (proj/build/compile_commands.json)"), std::string::npos)
      << r.cpp_source;

  d.write("bad/compile_commands.json", "{\"not\": \"an array\"}");
  AuditOptions o;
  o.paths = {"proj"};
  o.build_path = "bad";
  std::ostringstream progress;
  EXPECT_THROW(run_audit(o, d.path(), false, progress), std::runtime_error);
  o.build_path = "nowhere";
  EXPECT_THROW(run_audit(o, d.path(), false, progress), std::runtime_error);
}

TEST(Audit, UnreadableFilesAreCountedNotFatal) {
  TempDir d;
  d.write("p/train.py", kTrain);
  d.write("p/bin.py", std::string("import torch\0\x01", 15));
  d.write("p/broken.ipynb", "{ nope");
  AuditResult r = audit_of(d.path(), {"p"});
  EXPECT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.python_files, 1u);
  EXPECT_EQ(r.findings.size(), 3u);
}

TEST(Audit, SummaryText) {
  TempDir d;
  make_tree(d);
  AuditResult r = audit_of(d.path(), {"proj"});
  std::ostringstream out;
  write_summary(out, r, 2);
  std::string s = out.str();
  EXPECT_TRUE(std::regex_search(s, std::regex(
      R"(^gpulint audit: 4 files \(3 Python, 1 notebook, 2 C\+\+\), 53 lines in [0-9.]+ s \([0-9,]+ lines/s, 2 threads\)\n)")))
      << s;
  EXPECT_NE(s.find("C++: 2 files (file extensions): C++ files found, not analysed: this build has no C++ front end"),
            std::string::npos);
  EXPECT_NE(s.find("Findings: 9 (9 warning)\n"), std::string::npos) << s;
  EXPECT_NE(s.find("        3  DL001   dataloader-no-workers        warning\n"), std::string::npos) << s;
  EXPECT_NE(s.find("Top files:\n"), std::string::npos);
  EXPECT_NE(s.find("Top directories:\n"), std::string::npos);
  EXPECT_NE(s.find("  DL001 (3): each of these costs: H100, ResNet-18"), std::string::npos) << s;
  // --top 2: two rows per list.
  auto between = s.substr(s.find("Top files:\n"), s.find("Top directories:") - s.find("Top files:\n"));
  EXPECT_EQ(std::count(between.begin(), between.end(), '\n'), 1 + 2 + 1);
}

TEST(Audit, ReportsAgreeAndTheHtmlIsSelfContained) {
  TempDir d;
  make_tree(d);
  AuditResult r = audit_of(d.path(), {"proj"});
  auto j = nlohmann::json::parse(json_report(r, 10));
  EXPECT_EQ(j["summary"]["findings"], 9);
  EXPECT_EQ(j["summary"]["notebooks"], 1);
  EXPECT_EQ(j["summary"]["cpp_files"], 2);
  EXPECT_EQ(j["findings"].size(), 9u);
  std::size_t sum = 0;
  for (const auto& rule : j["rules"]) {
    sum += rule["count"].get<std::size_t>();
    EXPECT_FALSE(rule["measured_cost"].get<std::string>().empty());
  }
  EXPECT_EQ(sum, 9u);
  EXPECT_EQ(j["findings"][0]["cell"], 4);
  EXPECT_TRUE(j["findings"].back()["cell"].is_null());
  EXPECT_EQ(j["findings"].back()["fix"]["applicability"], "safe");

  std::string h = html_report(r, 10);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("src="), std::string::npos);
  EXPECT_EQ(h.find("<link"), std::string::npos);
  EXPECT_EQ(h.find("@import"), std::string::npos);
  EXPECT_NE(h.find("<svg id=\"chart-rules\""), std::string::npos);
  EXPECT_NE(h.find("<svg id=\"chart-dirs\""), std::string::npos);
  std::regex row("<tr class=\"finding\" data-code=\"");
  EXPECT_EQ(std::distance(std::sregex_iterator(h.begin(), h.end(), row), std::sregex_iterator()), 9);
  EXPECT_NE(h.find("<td class=\"num count\">3</td>"), std::string::npos);
  EXPECT_NE(h.find("https://gpulint.dev/rules/loss-kept-in-list"), std::string::npos);
  EXPECT_NE(h.find("<span class=\"ins\">+    losses.append(loss.detach())</span>"), std::string::npos);
  // Escaping: a path with markup stays text.
  r.findings[0].path = "<b>x</b>.py";
  EXPECT_NE(html_report(r, 10).find("&lt;b&gt;x&lt;/b&gt;.py"), std::string::npos);

  std::string m = markdown_report(r, 10);
  EXPECT_NE(m.find("| rule | name | severity | findings | what each costs (measured) |"), std::string::npos);
  EXPECT_NE(m.find("**9 findings** (9 warning)"), std::string::npos) << m;
  EXPECT_NE(m.find("```diff\n  @@ line 10 @@\n  -    losses.append(loss)\n"), std::string::npos) << m;
}

TEST(Audit, CommandLine) {
  TempDir d;
  make_tree(d);
  auto r = run_gpulint("audit proj --html out/r.html --json out/r.json --markdown out/r.md", d.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;  // out/ does not exist: the reports cannot be written
  std::filesystem::create_directories(d.path() / "out");
  r = run_gpulint("audit proj --html out/r.html --json out/r.json --markdown out/r.md", d.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\r'), std::string::npos);  // stdout is not a terminal: no progress bar
  EXPECT_NE(r.out.find("Findings: 9"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Wrote the HTML report: out/r.html"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read_file(d.path() / "out/r.json"))["summary"]["findings"], 9);
  EXPECT_FALSE(read_file(d.path() / "out/r.md").empty());
  // New report files get 0666 minus the umask, as any new file would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(static_cast<mode_t>(std::filesystem::status(d.path() / "out/r.html").permissions()) & 0777,
            0666 & ~mask);

  r = run_gpulint("audit proj --progress", d.path());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("\r["), std::string::npos) << r.out;  // forced on: 4 files to analyse
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\r\[[# ]{30}\] [0-9]+/[46] files  [0-9,]+ files/s  [0-9.]+ s)")))
      << r.out;
  EXPECT_NE(r.out.find("\r\033[K"), std::string::npos);  // and cleared before the summary

  r = run_gpulint("audit nowhere", d.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: nowhere"), std::string::npos) << r.err;
  r = run_gpulint("audit proj --select XYZ", d.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown rule selector `XYZ`"), std::string::npos) << r.err;
  r = run_gpulint("audit proj --select MEM001", d.path());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Findings: 3 (3 warning)"), std::string::npos) << r.out;
  d.write("proj/gpulint.toml", "select = [\"NOPE\"\n");
  r = run_gpulint("audit proj", d.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gpulint.toml"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpulint::audit
