// CI output formats: json-lines, sarif, github, gitlab, junit (analyzer/output_ci.h).
// SARIF is also validated end to end with Microsoft's SARIF Multitool
// (tests/e2e/sarif_validate.sh); these tests pin the layout and the position units.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "analyzer/output.h"
#include "analyzer/output_ci.h"
#include "analyzer/notebook.h"
#include "analyzer/rule.h"
#include "tests/test_util.h"

namespace gpulint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Line 3 holds "𝔵" (4 UTF-8 bytes, 1 code point, 2 UTF-16 code units) and "é" (2 bytes, 1
// code point, 1 UTF-16 unit) before the call, so the three column units all differ:
// `DataLoader` starts at byte column 22, code-point column 18, UTF-16 column 19 (1-based).
const char* kSource =
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "\xF0\x9D\x94\xB5\xC3\xA9 = 1; loader = DataLoader(ds, batch_size=64)\n";

struct Fixture {
  SourceFile src{"/work/repo/src/train.py", kSource};
  std::vector<Diagnostic> diags;
  Fixture() {
    auto [dl001, dl002] = testing::dataloader_call_diagnostics(src.text());
    Diagnostic dev002;
    dev002.code = "DEV002";
    dev002.severity = Severity::Error;
    dev002.message = "batch <x> & \"y\" never moved, 100%: a,b";
    dev002.start = 0;
    dev002.end = 12;
    diags = {dl001, dl002, dev002};
  }
  std::vector<FileDiagnostics> files() const {
    return {FileDiagnostics{"src/train.py", &src, &diags}};
  }
};

std::string render(const std::vector<FileDiagnostics>& files, OutputFormat format,
                   std::filesystem::path cwd = "/work/repo") {
  OutputOptions o;
  o.format = format;
  o.cwd = cwd;
  std::ostringstream out;
  write_diagnostics(out, files, o);
  return out.str();
}

TEST(OutputCi, FormatNames) {
  for (const std::string& name : output_format_names()) {
    OutputFormat f;
    EXPECT_TRUE(parse_output_format(name, &f)) << name;
  }
  OutputFormat f;
  EXPECT_TRUE(parse_output_format("json-lines", &f));
  EXPECT_EQ(f, OutputFormat::JsonLines);
  EXPECT_FALSE(parse_output_format("xml", &f));
  EXPECT_TRUE(format_has_summary(OutputFormat::Full));
  EXPECT_TRUE(format_has_summary(OutputFormat::Concise));
  for (OutputFormat m : {OutputFormat::Json, OutputFormat::JsonLines, OutputFormat::Sarif,
                         OutputFormat::Github, OutputFormat::Gitlab, OutputFormat::Junit})
    EXPECT_FALSE(format_has_summary(m));
}

TEST(OutputCi, JsonLinesIsOneRuffObjectPerLine) {
  Fixture f;
  std::string s = render(f.files(), OutputFormat::JsonLines);
  std::istringstream lines(s);
  std::string line;
  std::vector<nlohmann::json> objects;
  while (std::getline(lines, line)) objects.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(objects.size(), 3u);
  EXPECT_EQ(objects[0]["code"], "DL001");
  EXPECT_EQ(objects[0]["filename"], "/work/repo/src/train.py");
  EXPECT_EQ(objects[0]["location"], (nlohmann::json{{"row", 3}, {"column", 18}}));
  EXPECT_EQ(objects[1]["fix"]["applicability"], "safe");
  EXPECT_TRUE(objects[2]["fix"].is_null());
  // Same objects as the json format's array.
  auto arr = nlohmann::json::parse(render(f.files(), OutputFormat::Json));
  EXPECT_EQ(arr, nlohmann::json(objects));
  EXPECT_EQ(render({}, OutputFormat::JsonLines), "");
}

TEST(OutputCi, SarifLayout) {
  Fixture f;
  auto log = nlohmann::json::parse(render(f.files(), OutputFormat::Sarif));
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_EQ(log["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  ASSERT_EQ(log["runs"].size(), 1u);
  const auto& run = log["runs"][0];
  EXPECT_EQ(run["columnKind"], "utf16CodeUnits");
  EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///work/repo/");

  const auto& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "gpulint");
  EXPECT_EQ(driver["version"], GPULINT_VERSION);
  ASSERT_EQ(driver["rules"].size(), all_rules().size());
  for (std::size_t i = 0; i < all_rules().size(); ++i) {
    const RuleInfo& info = all_rules()[i]->info();
    const auto& r = driver["rules"][i];
    EXPECT_EQ(r["id"], std::string(info.code));
    EXPECT_EQ(r["name"], std::string(info.name));
    EXPECT_EQ(r["helpUri"], rule_url(info.code));
    EXPECT_EQ(r["help"]["markdown"], std::string(info.doc));
    EXPECT_EQ(r["help"]["text"], std::string(info.doc));
    std::string full = r["fullDescription"]["text"];
    EXPECT_FALSE(full.empty());
    EXPECT_THAT(full, Not(HasSubstr("## ")));  // only the "What it does" section
    EXPECT_THAT(std::string(info.doc), HasSubstr(full));
    EXPECT_THAT(std::string(r["shortDescription"]["text"]), HasSubstr(std::string(info.summary)));
  }

  const auto& results = run["results"];
  ASSERT_EQ(results.size(), 3u);
  const auto& r0 = results[0];
  EXPECT_EQ(r0["ruleId"], "DL001");
  EXPECT_EQ(driver["rules"][r0["ruleIndex"].get<std::size_t>()]["id"], "DL001");
  EXPECT_EQ(r0["level"], "warning");
  EXPECT_EQ(r0["message"]["text"], "`DataLoader` has no worker processes.");
  const auto& loc = r0["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "src/train.py");
  EXPECT_EQ(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  // UTF-16 columns: 𝔵 counts 2, é counts 1.
  EXPECT_EQ(loc["region"], (nlohmann::json{{"startLine", 3}, {"startColumn", 19},
                                            {"endLine", 3}, {"endColumn", 29},
                                            {"snippet", {{"text", "DataLoader"}}}}));
  EXPECT_EQ(loc["contextRegion"]["startLine"], 3);
  EXPECT_EQ(loc["contextRegion"]["startColumn"], 1);
  EXPECT_EQ(loc["contextRegion"]["snippet"]["text"],
            "\xF0\x9D\x94\xB5\xC3\xA9 = 1; loader = DataLoader(ds, batch_size=64)");
  // The unsafe fix: an insertion after "64" (empty deleted region) plus the inserted text.
  ASSERT_EQ(r0["fixes"].size(), 1u);
  const auto& fix = r0["fixes"][0];
  EXPECT_EQ(fix["properties"]["applicability"], "unsafe");
  EXPECT_THAT(std::string(fix["description"]["text"]), HasSubstr("Set `num_workers=4`"));
  const auto& change = fix["artifactChanges"][0];
  EXPECT_EQ(change["artifactLocation"]["uri"], "src/train.py");
  const auto& rep = change["replacements"][0];
  EXPECT_EQ(rep["deletedRegion"], (nlohmann::json{{"startLine", 3}, {"startColumn", 47},
                                                  {"endLine", 3}, {"endColumn", 47}}));
  EXPECT_EQ(rep["insertedContent"]["text"], ", num_workers=4");
  EXPECT_EQ(results[1]["fixes"][0]["properties"]["applicability"], "safe");
  EXPECT_EQ(results[2]["level"], "error");
  EXPECT_FALSE(results[2].contains("fixes"));
}

TEST(OutputCi, SarifUrisOutsideTheWorkingDirectoryAreAbsoluteAndEncoded) {
  Fixture f;
  std::vector<FileDiagnostics> files = {FileDiagnostics{"/data/my runs/tr#1.py", &f.src, &f.diags}};
  auto log = nlohmann::json::parse(render(files, OutputFormat::Sarif));
  const auto& art = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(art["uri"], "file:///data/my%20runs/tr%231.py");
  EXPECT_FALSE(art.contains("uriBaseId"));
  EXPECT_EQ(uri_encode_path("a/b c/ü.py"), "a/b%20c/%C3%BC.py");
  // An empty run is still a valid log with every rule.
  auto empty = nlohmann::json::parse(render({}, OutputFormat::Sarif));
  EXPECT_EQ(empty["runs"][0]["results"], nlohmann::json::array());
  EXPECT_EQ(empty["runs"][0]["tool"]["driver"]["rules"].size(), all_rules().size());
}

TEST(OutputCi, GithubWorkflowCommands) {
  Fixture f;
  std::string s = render(f.files(), OutputFormat::Github);
  std::istringstream in(s);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "::warning title=gpulint (DL001),file=/work/repo/src/train.py,line=3,col=18,endLine=3,"
            "endColumn=28::src/train.py:3:18: DL001 `DataLoader` has no worker processes");
  // Severity error → ::error; '%' escaped in the message, ':' and ',' only in properties.
  EXPECT_EQ(lines[2],
            "::error title=gpulint (DEV002),file=/work/repo/src/train.py,line=1,col=1,endLine=1,"
            "endColumn=13::src/train.py:1:1: DEV002 batch <x> & \"y\" never moved, 100%25: a,b");
  // The location is the shared one of the text formats (output.h's location_text), which
  // counts code points and takes an offset past the end as the end.
  EXPECT_EQ(location_text("src/train.py", f.src, nullptr, f.diags[0].start), "src/train.py:3:18");
  EXPECT_EQ(location_text("t.py", f.src, nullptr, 1u << 30),
            location_text("t.py", f.src, nullptr, static_cast<uint32_t>(f.src.text().size())));
  EXPECT_THAT(render(f.files(), OutputFormat::Concise), HasSubstr("src/train.py:3:18: DL001"));
  std::vector<FileDiagnostics> odd = {FileDiagnostics{"/w/a,b:c.py", &f.src, &f.diags}};
  EXPECT_THAT(render(odd, OutputFormat::Github), HasSubstr("file=/w/a%2Cb%3Ac.py,"));
  EXPECT_EQ(render({}, OutputFormat::Github), "");
}

TEST(OutputCi, GitlabCodeQuality) {
  Fixture f;
  auto arr = nlohmann::json::parse(render(f.files(), OutputFormat::Gitlab));
  ASSERT_EQ(arr.size(), 3u);
  const auto& first = arr[0];
  EXPECT_EQ(first["check_name"], "DL001");
  EXPECT_EQ(first["description"], "DL001: `DataLoader` has no worker processes");
  EXPECT_EQ(first["severity"], "major");
  EXPECT_EQ(arr[2]["severity"], "critical");
  EXPECT_EQ(first["location"]["path"], "src/train.py");
  EXPECT_EQ(first["location"]["lines"], (nlohmann::json{{"begin", 3}, {"end", 3}}));
  std::string fp = first["fingerprint"];
  EXPECT_EQ(fp.size(), 16u);
  EXPECT_NE(arr[0]["fingerprint"], arr[1]["fingerprint"]);

  // Stable: the same finding moved two lines down keeps its fingerprint.
  SourceFile moved("/work/repo/src/train.py", std::string("\n\n") + kSource);
  std::vector<Diagnostic> shifted = f.diags;
  for (Diagnostic& d : shifted) {
    d.start += 2;
    d.end += 2;
    if (d.fix)
      for (Edit& e : d.fix->edits) e.start += 2, e.end += 2;
  }
  auto arr2 = nlohmann::json::parse(
      render({FileDiagnostics{"src/train.py", &moved, &shifted}}, OutputFormat::Gitlab));
  EXPECT_EQ(arr2[0]["fingerprint"], arr[0]["fingerprint"]);
  EXPECT_EQ(arr2[0]["location"]["lines"]["begin"], 5);

  // Identical findings get distinct fingerprints.
  std::vector<Diagnostic> twice = {f.diags[0], f.diags[0]};
  auto dup = nlohmann::json::parse(
      render({FileDiagnostics{"src/train.py", &f.src, &twice}}, OutputFormat::Gitlab));
  EXPECT_NE(dup[0]["fingerprint"], dup[1]["fingerprint"]);

  // Paths relative to CI_PROJECT_DIR (project_dir) when set.
  OutputOptions o;
  o.format = OutputFormat::Gitlab;
  o.cwd = "/work/repo/src";
  o.project_dir = "/work/repo";
  std::ostringstream out;
  write_diagnostics(out, {FileDiagnostics{"train.py", &f.src, &f.diags}}, o);
  EXPECT_EQ(nlohmann::json::parse(out.str())[0]["location"]["path"], "src/train.py");
  EXPECT_EQ(nlohmann::json::parse(render({}, OutputFormat::Gitlab)), nlohmann::json::array());
}

TEST(OutputCi, Junit) {
  Fixture f;
  std::string s = render(f.files(), OutputFormat::Junit);
  EXPECT_THAT(s, HasSubstr("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                           "<testsuites name=\"gpulint\" tests=\"3\" failures=\"3\" errors=\"0\">\n"
                           "    <testsuite name=\"src/train.py\" tests=\"3\" disabled=\"0\" "
                           "errors=\"0\" failures=\"3\" package=\"org.gpulint\">\n"
                           "        <testcase name=\"org.gpulint.DL001\" classname=\"src/train\" "
                           "line=\"3\" column=\"18\">\n"
                           "            <failure message=\"`DataLoader` has no worker processes\">"
                           "line 3, col 18, `DataLoader` has no worker processes</failure>\n"
                           "        </testcase>\n"));
  // XML escaping of the message in the attribute and in the text.
  EXPECT_THAT(s, HasSubstr("message=\"batch &lt;x&gt; &amp; &quot;y&quot; never moved, 100%: a,b\""));
  EXPECT_THAT(s, HasSubstr(">line 1, col 1, batch &lt;x&gt; &amp; &quot;y&quot; never moved"));
  EXPECT_THAT(s, HasSubstr("</testsuite>\n</testsuites>\n"));
  std::string empty = render({}, OutputFormat::Junit);
  EXPECT_THAT(empty, HasSubstr("<testsuites name=\"gpulint\" tests=\"1\" failures=\"0\" errors=\"0\">"));
  EXPECT_THAT(empty, HasSubstr("<testcase name=\"No errors found\"/>"));
}

TEST(OutputCi, Fnv1a64) {
  // Published FNV-1a 64 test vectors.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

}  // namespace
}  // namespace gpulint

namespace gpulint {
namespace {

// A notebook: module positions are not lines of the .ipynb file, so every CI format names the
// cell (1-based over all cells, markdown included) and the line and column inside it.
TEST(OutputCi, NotebookDiagnosticsNameTheCell) {
  const std::string ipynb = R"({
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
   "source": ["import torch\n", "from torch.utils.data import DataLoader\n"]},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
   "source": ["ds = None\n", "loader = DataLoader(ds, batch_size=64)\n"]}
 ],
 "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
 "nbformat": 4, "nbformat_minor": 5
}
)";
  LoadError error;
  auto nb = Notebook::parse(ipynb, &error);
  ASSERT_TRUE(nb.has_value());
  SourceFile module("/work/repo/nb.ipynb", nb->module_text());
  uint32_t at = static_cast<uint32_t>(module.text().find("DataLoader(ds"));
  ASSERT_NE(at, std::string::npos);
  Diagnostic d;
  d.code = "DL001";
  d.message = "`DataLoader` has no worker processes";
  d.start = at;
  d.end = at + 10;
  d.fix = Fix{Applicability::Unsafe, "Set `num_workers=4`", {{at, at, "x"}}};
  std::vector<Diagnostic> diags{d};
  std::vector<FileDiagnostics> files{FileDiagnostics{"nb.ipynb", &module, &diags, &*nb}};

  std::string gh = render(files, OutputFormat::Github);
  EXPECT_THAT(gh, HasSubstr("nb.ipynb:cell 3:2:10: DL001"));
  EXPECT_EQ(location_text("nb.ipynb", module, &*nb, at), "nb.ipynb:cell 3:2:10");
  EXPECT_THAT(render(files, OutputFormat::Concise), HasSubstr("nb.ipynb:cell 3:2:10: DL001"));
  EXPECT_THAT(gh, Not(HasSubstr(",line=")));

  auto gl = nlohmann::json::parse(render(files, OutputFormat::Gitlab));
  EXPECT_THAT(gl[0]["description"].get<std::string>(), HasSubstr("cell 3, line 2, column 10"));
  EXPECT_EQ(gl[0]["location"]["lines"]["begin"], 1);

  std::string junit = render(files, OutputFormat::Junit);
  EXPECT_THAT(junit, HasSubstr("cell 3, line 2, column 10"));
  EXPECT_THAT(junit, Not(HasSubstr("line=\"")));

  auto sarif = nlohmann::json::parse(render(files, OutputFormat::Sarif));
  const auto& r = sarif["runs"][0]["results"][0];
  EXPECT_EQ(r["properties"]["cell"], 3);
  EXPECT_EQ(r["properties"]["cellLine"], 2);
  EXPECT_EQ(r["properties"]["cellColumn"], 10);
  EXPECT_FALSE(r["locations"][0]["physicalLocation"].contains("region"));
  EXPECT_FALSE(r.contains("fixes"));
  EXPECT_THAT(r["message"]["text"].get<std::string>(), HasSubstr("cell 3, line 2, column 10"));
}

}  // namespace
}  // namespace gpulint
