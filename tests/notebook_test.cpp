// Jupyter notebooks: the module built from code cells, magics, cell/line mapping, fixes written
// back into the cells, and the notebook fixture's `# expect:` annotations.
#include "analyzer/notebook.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <set>

#include "analyzer/driver.h"
#include "tests/test_util.h"

namespace gpulint {
namespace {

using testing::read_file;
using testing::TempDir;
using ojson = nlohmann::ordered_json;

const std::string kFixture = std::string(GPULINT_SOURCE_DIR) + "/fixtures/notebooks/cifar_finetune.ipynb";

// A notebook document with these code cells (nbformat's layout: sorted keys, indent 1).
std::string make_notebook(const std::vector<std::string>& code_cells, const std::string& language = "python") {
  ojson cells = ojson::array();
  for (const auto& src : code_cells) {
    ojson lines = ojson::array();
    std::size_t pos = 0;
    while (pos < src.size()) {
      std::size_t nl = src.find('\n', pos);
      std::size_t end = nl == std::string::npos ? src.size() : nl + 1;
      lines.push_back(src.substr(pos, end - pos));
      pos = end;
    }
    cells.push_back({{"cell_type", "code"}, {"execution_count", nullptr}, {"metadata", ojson::object()},
                     {"outputs", ojson::array()}, {"source", lines}});
  }
  ojson nb = {{"cells", cells},
              {"metadata", {{"language_info", {{"name", language}}}}},
              {"nbformat", 4},
              {"nbformat_minor", 5}};
  return nb.dump(1) + "\n";
}

Notebook parse_ok(const std::string& bytes) {
  LoadError err;
  auto nb = Notebook::parse(bytes, &err);
  EXPECT_TRUE(nb.has_value()) << err.message;
  return nb ? std::move(*nb) : *Notebook::parse("{\"cells\": []}", &err);
}

TEST(Notebook, SerializeRoundTripsAnNbformatFile) {
  std::string bytes = read_file(kFixture);
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(parse_ok(bytes).serialize(), bytes);
  // A compact file stays compact.
  std::string compact = "{\"cells\":[],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}";
  EXPECT_EQ(parse_ok(compact).serialize(), compact);
}

TEST(Notebook, ModuleKeepsOneLinePerCellLineAndHidesIPythonSyntax) {
  Notebook nb = parse_ok(read_file(kFixture));
  const std::string& m = nb.module_text();
  for (const char* ipython : {"!pip", "%matplotlib", "%%bash", "nvidia-smi", "= !ls", "train_set?",
                              "%time print", "!date"})
    EXPECT_EQ(m.find(ipython), std::string::npos) << ipython;
  EXPECT_NE(m.find("train_loader = DataLoader(train_set"), std::string::npos);
  EXPECT_EQ(nb.code_cells(), 6u);
  // Cell lines: 7 + 3 + 6 + 3 + 11 + 1 (the empty cell is one empty line).
  EXPECT_EQ(nb.cell_lines(), 31u);
  EXPECT_EQ(python_syntax_error_count(m), 0u) << m;
}

TEST(Notebook, CellPositionsOfModuleOffsets) {
  Notebook nb = parse_ok(read_file(kFixture));
  SourceFile module("nb.ipynb", nb.module_text());
  auto pos_of = [&](const std::string& needle) {
    std::size_t at = nb.module_text().find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    return nb.cell_position(module, static_cast<uint32_t>(at));
  };
  CellPosition p = pos_of("import torch\n");
  EXPECT_EQ(p.cell, 2u);  // the markdown cell is cell 1
  EXPECT_EQ(p.line, 2u);
  p = pos_of("DataLoader(train_set");
  EXPECT_EQ(p.cell, 4u);
  EXPECT_EQ(p.line, 3u);
  EXPECT_EQ(p.column, 15u);
  p = pos_of("losses.append");
  EXPECT_EQ(p.cell, 7u);
  EXPECT_EQ(p.line, 8u);
  EXPECT_EQ(p.column, 8u);
}

// Every diagnostic lands on a cell line annotated `# expect: CODE`, and every annotation is met.
TEST(Notebook, FixtureExpectationsByCellAndLine) {
  std::string bytes = read_file(kFixture);
  auto doc = ojson::parse(bytes);
  std::multiset<std::tuple<uint32_t, uint32_t, std::string>> expected, got;
  std::regex expect_re("# expect:((?: [A-Z]+[0-9]{3})+)");
  for (std::size_t i = 0; i < doc["cells"].size(); ++i) {
    const auto& cell = doc["cells"][i];
    if (cell["cell_type"] != "code") continue;
    uint32_t line = 0;
    for (const auto& l : cell["source"]) {
      std::string s = l.get<std::string>();
      std::smatch m;
      if (std::regex_search(s, m, expect_re)) {
        std::istringstream codes(m[1].str());
        std::string c;
        while (codes >> c) expected.insert({static_cast<uint32_t>(i + 1), line, c});
      }
      ++line;
    }
  }
  ASSERT_EQ(expected.size(), 3u);
  FileTask t;
  t.path = kFixture;
  t.settings = FileSettings::all_rules_enabled();
  auto outcomes = run_tasks({t}, DriverOptions{});
  ASSERT_EQ(outcomes.size(), 1u);
  const FileOutcome& o = outcomes[0];
  ASSERT_FALSE(o.error) << *o.error;
  ASSERT_TRUE(o.notebook);
  ASSERT_TRUE(o.source);
  EXPECT_TRUE(o.warnings.empty());
  for (const Diagnostic& d : o.diagnostics) {
    CellPosition p = o.notebook->cell_position(*o.source, d.start);
    got.insert({p.cell, p.line, d.code});
  }
  EXPECT_EQ(got, expected);
}

TEST(Notebook, FixWritesOnlyTheFixedCellsAndIsIdempotent) {
  TempDir dir;
  auto path = dir.write("train.ipynb", read_file(kFixture));
  FileTask t;
  t.path = path.string();
  t.settings = FileSettings::all_rules_enabled();
  DriverOptions opt;
  opt.fix_mode = FixMode::Apply;
  opt.unsafe_fixes = true;
  auto first = run_tasks({t}, opt);
  ASSERT_FALSE(first[0].error) << *first[0].error;
  EXPECT_TRUE(first[0].changed);
  EXPECT_EQ(first[0].fixed.at("DL001"), 1u);
  EXPECT_EQ(first[0].fixed.at("DL002"), 1u);
  EXPECT_EQ(first[0].fixed.at("MEM001"), 1u);
  std::string fixed = read_file(path);
  EXPECT_EQ(fixed, read_file(kFixture + ".fixed"));
  // Valid nbformat JSON; only cells 2, 4 and 7 differ, and only in `source`.
  auto before = ojson::parse(read_file(kFixture));
  auto after = ojson::parse(fixed);
  ASSERT_EQ(before["cells"].size(), after["cells"].size());
  std::set<std::size_t> changed;
  for (std::size_t i = 0; i < before["cells"].size(); ++i) {
    ojson b = before["cells"][i], a = after["cells"][i];
    if (b != a) changed.insert(i + 1);
    b.erase("source");
    a.erase("source");
    EXPECT_EQ(a, b) << "cell " << i + 1;
  }
  EXPECT_EQ(changed, (std::set<std::size_t>{2, 4, 7}));
  EXPECT_EQ(before["metadata"], after["metadata"]);
  // The IPython lines are kept byte for byte.
  EXPECT_NE(fixed.find("\"!pip install -q timm\\n\""), std::string::npos);
  EXPECT_NE(fixed.find("\"    %time print(epoch)\\n\""), std::string::npos);
  // A second run changes nothing.
  auto second = run_tasks({t}, opt);
  EXPECT_FALSE(second[0].changed);
  EXPECT_TRUE(second[0].diagnostics.empty());
  EXPECT_EQ(read_file(path), fixed);
}

TEST(Notebook, DiffShowsTheNotebookJsonChange) {
  FileTask t;
  t.path = kFixture;
  t.settings = FileSettings::all_rules_enabled();
  DriverOptions opt;
  opt.fix_mode = FixMode::Diff;
  auto o = run_tasks({t}, opt);
  ASSERT_TRUE(o[0].changed);
  EXPECT_NE(o[0].diff.find("+    \"        losses.append(loss.detach())  # expect: MEM001\\n\","),
            std::string::npos)
      << o[0].diff;
  EXPECT_EQ(read_file(kFixture).find("loss.detach()"), std::string::npos);  // nothing written
}

TEST(Notebook, MagicsNeverMisParse) {
  std::string bytes = make_notebook({
      "import torch\nfor i in range(3):\n    !echo $i\n",           // shell line as a block body
      "%%writefile helper.py\ndef f(:\n    broken python\n",       // a non-Python cell magic
      "%%timeit\nx = torch.zeros(3)\n",                            // a Python cell magic
      "%time y = f(1, \\\n    2)\nz = 1\n",                        // a continued line magic
      "torch.zeros?\n?torch.ones\nout = %env PATH\na, b = !ls\n",  // help and assignments
      "x = 10 % 3\ny = x != 2  # not a magic?\n",                  // Python that looks close
  });
  Notebook nb = parse_ok(bytes);
  EXPECT_EQ(python_syntax_error_count(nb.module_text()), 0u) << nb.module_text();
  SourceFile module("t.ipynb", nb.module_text());
  for (const char* python : {"x = 10 % 3", "y = x != 2", "x = torch.zeros(3)", "z = 1"})
    EXPECT_NE(nb.module_text().find(python), std::string::npos) << python;
  for (const char* ipython : {"broken python", "!echo", "writefile", "%time y", "    2)", "?torch",
                              "%env", "!ls"})
    EXPECT_EQ(nb.module_text().find(ipython), std::string::npos) << ipython;
  // Write-back of an unchanged module gives the same document.
  std::string err;
  auto back = nb.write_back(nb.module_text(), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(*back, bytes);
}

TEST(Notebook, SourceAsOneStringStaysAString) {
  std::string bytes =
      "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {},\n   \"outputs\": [],\n"
      "   \"source\": \"import torch\\nlosses = []\\nfor x in range(3):\\n    loss = torch.ones(1, "
      "requires_grad=True).sum()\\n    loss.backward()\\n    losses.append(loss)\"\n  }\n ],\n"
      " \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
  TempDir dir;
  auto path = dir.write("s.ipynb", bytes);
  FileTask t;
  t.path = path.string();
  t.settings = FileSettings::all_rules_enabled();
  DriverOptions opt;
  opt.fix_mode = FixMode::Apply;
  auto o = run_tasks({t}, opt);
  ASSERT_FALSE(o[0].error) << *o[0].error;
  ASSERT_TRUE(o[0].changed);
  auto doc = ojson::parse(read_file(path));
  ASSERT_TRUE(doc["cells"][0]["source"].is_string());
  EXPECT_NE(doc["cells"][0]["source"].get<std::string>().find("losses.append(loss.detach())"),
            std::string::npos);
}

TEST(Notebook, BadNotebooksAreClearErrors) {
  LoadError err;
  EXPECT_FALSE(Notebook::parse("{\"cells\": [", &err));
  EXPECT_NE(err.message.find("invalid JSON"), std::string::npos) << err.message;
  EXPECT_FALSE(Notebook::parse("[1, 2]", &err));
  EXPECT_NE(err.message.find("no `cells` list"), std::string::npos) << err.message;
  EXPECT_FALSE(Notebook::parse("{\"cells\": [], \"nbformat\": 3}", &err));
  EXPECT_NE(err.message.find("nbformat 3"), std::string::npos) << err.message;
  EXPECT_FALSE(Notebook::parse("{\"cells\": [{\"cell_type\": \"code\", \"source\": 7}]}", &err));
  EXPECT_NE(err.message.find("cell 1"), std::string::npos) << err.message;
  EXPECT_FALSE(Notebook::parse("{\"cells\": [\"x\"]}", &err));

  // Through the driver: an error line for the file, a warning for a non-Python notebook.
  TempDir dir;
  FileTask bad;
  bad.path = dir.write("bad.ipynb", "{ not json").string();
  bad.display = "bad.ipynb";
  FileTask r;
  r.path = dir.write("r.ipynb", make_notebook({"library(torch)\n"}, "R")).string();
  r.display = "r.ipynb";
  auto o = run_tasks({bad, r}, DriverOptions{});
  ASSERT_TRUE(o[0].error);
  EXPECT_NE(o[0].error->find("error: bad.ipynb: not a valid notebook: invalid JSON"), std::string::npos)
      << *o[0].error;
  EXPECT_FALSE(o[1].error);
  ASSERT_EQ(o[1].warnings.size(), 1u);
  EXPECT_EQ(o[1].warnings[0], "warning: r.ipynb: a R notebook, not Python; skipped");
}

TEST(Notebook, SyntaxErrorWarningNamesTheCell) {
  TempDir dir;
  FileTask t;
  t.path = dir.write("e.ipynb", make_notebook({"import torch\n", "x = 1\ny = (\n"})).string();
  t.display = "e.ipynb";
  t.settings = FileSettings::all_rules_enabled();
  auto o = run_tasks({t}, DriverOptions{});
  ASSERT_EQ(o[0].warnings.size(), 1u);
  EXPECT_EQ(o[0].warnings[0].rfind("warning: e.ipynb:cell 2:", 0), 0u) << o[0].warnings[0];
}

TEST(Notebook, CheckCommandPrintsCellLocations) {
  auto r = testing::run_gpulint("check --output-format concise fixtures/notebooks/cifar_finetune.ipynb",
                                GPULINT_SOURCE_DIR);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("fixtures/notebooks/cifar_finetune.ipynb:cell 4:4:16: DL001 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fixtures/notebooks/cifar_finetune.ipynb:cell 7:9:9: MEM001 [*] "), std::string::npos)
      << r.out;
  auto j = testing::run_gpulint("check --output-format json fixtures/notebooks/", GPULINT_SOURCE_DIR);
  auto arr = nlohmann::json::parse(j.out);
  ASSERT_EQ(arr.size(), 3u);
  EXPECT_EQ(arr[2]["cell"], 7);
  EXPECT_EQ(arr[2]["location"]["row"], 9);
  EXPECT_EQ(arr[2]["noqa_row"], 9);
}

}  // namespace
}  // namespace gpulint
