// The C++ fixtures: every fixtures/cpp/<RULE>/*.cpp is parsed by the Clang front end against
// Debian's libtorch-dev headers (fallback flags, the cached <torch/torch.h> PCH) and must
// (1) compile without a single clang error — so each fixture is known to be valid LibTorch
// C++ — and (2) produce exactly the `// expect: CODE ...` annotations (line and code).
// Also: NOLINT parsing, compile_commands.json errors, missing headers, non-C++ input, fixes.
#ifdef GPULINT_CPP

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "analyzer/analysis.h"
#include "analyzer/cpp/frontend.h"
#include "analyzer/fixer.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using namespace gpulint;

namespace {

const fs::path kRoot = GPULINT_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One project for the whole test binary: the PCH is built once and shared.
cpp::CppProject& project() {
  static std::unique_ptr<cpp::CppProject> p = [] {
    cpp::CppOptions o;
    o.note = [](const std::string&) {};
    std::string err;
    auto made = cpp::CppProject::open(o, &err);
    if (!made) throw std::runtime_error(err);
    return made;
  }();
  return *p;
}

// (1-based line, code) pairs from `// expect: A B` comments.
std::set<std::pair<uint32_t, std::string>> expectations(const std::string& text) {
  std::set<std::pair<uint32_t, std::string>> out;
  std::istringstream lines(text);
  std::string line;
  uint32_t n = 0;
  while (std::getline(lines, line)) {
    ++n;
    auto c = line.find("// expect:");
    if (c == std::string::npos) continue;
    std::istringstream words(line.substr(c + 10));
    std::string w;
    while (words >> w) out.insert({n, w});
  }
  return out;
}

std::vector<std::string> cpp_fixtures() {
  std::vector<std::string> out;
  fs::path dir = kRoot / "fixtures/cpp";
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".cpp" && e.path().parent_path().filename() != "fixes")
      out.push_back(fs::relative(e.path(), kRoot).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (auto& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class CppFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CppFixture, CompilesAndDiagnosticsMatchExpectations) {
  fs::path path = kRoot / GetParam();
  SourceFile src(path.string(), read(path));
  FileReport report = project().analyze(src, FileSettings::all_rules_enabled());
  ASSERT_FALSE(report.error) << *report.error;
  // A fixture about missing project headers names the header it includes on purpose
  // (`// fixture-missing-header: "name.h"`): clang's error must be that one, and only then is
  // the file allowed not to compile. Every other fixture must be valid LibTorch C++.
  std::string missing;
  if (auto m = std::string(src.text()).find("// fixture-missing-header: \""); m != std::string::npos) {
    auto b = m + std::string("// fixture-missing-header: \"").size();
    missing = std::string(src.text()).substr(b, std::string(src.text()).find('"', b) - b);
  }
  if (missing.empty()) {
    EXPECT_FALSE(report.syntax_error) << "not valid LibTorch C++: " << report.syntax_error->message;
  } else {
    ASSERT_TRUE(report.syntax_error) << "the fixture says " << missing << " is missing";
    EXPECT_NE(report.syntax_error->message.find("'" + missing + "' file not found"), std::string::npos)
        << report.syntax_error->message;
  }
  std::set<std::pair<uint32_t, std::string>> got;
  std::ostringstream detail;
  for (const auto& d : report.diagnostics) {
    uint32_t line = src.line_of(d.start) + 1;
    got.insert({line, d.code});
    detail << "  " << line << ": " << d.code << " " << d.message << "\n";
  }
  auto want = expectations(std::string(src.text()));
  std::ostringstream diff;
  for (const auto& w : want)
    if (!got.count(w)) diff << "  missing    " << GetParam() << ":" << w.first << " " << w.second << "\n";
  for (const auto& g : got)
    if (!want.count(g)) diff << "  unexpected " << GetParam() << ":" << g.first << " " << g.second << "\n";
  EXPECT_TRUE(diff.str().empty()) << diff.str() << "all diagnostics:\n" << detail.str();
}

INSTANTIATE_TEST_SUITE_P(Cpp, CppFixture, ::testing::ValuesIn(cpp_fixtures()), param_name);

TEST(CppFixtureCorpus, EveryCppRuleHasSixFixturesWithPositivesAndNegatives) {
  for (const char* rule : {"DL001", "DEV001", "DEV002", "DEV003", "MEM001"}) {
    std::size_t pos = 0, neg = 0;
    for (const auto& rel : cpp_fixtures()) {
      if (fs::path(rel).parent_path().filename() != rule) continue;
      bool any = false;
      for (const auto& e : expectations(read(kRoot / rel))) any |= e.second == rule;
      (any ? pos : neg)++;
    }
    EXPECT_GE(pos + neg, 6u) << rule;
    EXPECT_GE(pos, 2u) << rule;
    EXPECT_GE(neg, 2u) << rule;
  }
}

// --- fixes ---------------------------------------------------------------------------------

FileReport analyze_text(const fs::path& path, const std::string& text) {
  return project().analyze(SourceFile(path.string(), text), FileSettings::all_rules_enabled());
}

std::string fix_all(const fs::path& path, const std::string& text) {
  SourceFile src(path.string(), text);
  auto analyze = [&](const SourceFile& s) { return project().analyze(s, FileSettings::all_rules_enabled()); };
  FixResult r = fix_source(src, analyze(src), /*unsafe_fixes=*/true, analyze);
  EXPECT_FALSE(r.error) << *r.error;
  return r.text;
}

TEST(CppFix, Dl001BatchSizeOnlyGetsWorkers) {
  gpulint::testing::TempDir dir;
  fs::path f = dir.path() / "train.cpp";
  std::string text =
      "#include <torch/torch.h>\n"
      "int main() {\n"
      "  auto ds = torch::data::datasets::MNIST(\"d\").map(torch::data::transforms::Stack<>());\n"
      "  auto loader = torch::data::make_data_loader(std::move(ds), 64);\n"
      "  for (auto& b : *loader) (void)b;\n"
      "}\n";
  std::string fixed = fix_all(f, text);
  EXPECT_NE(fixed.find("make_data_loader(std::move(ds), torch::data::DataLoaderOptions(64).workers(4))"),
            std::string::npos)
      << fixed;
  auto again = analyze_text(f, fixed);
  EXPECT_FALSE(again.syntax_error);
  EXPECT_TRUE(again.diagnostics.empty());
}

TEST(CppFix, Dev003AndMem001) {
  gpulint::testing::TempDir dir;
  fs::path f = dir.path() / "train.cpp";
  std::string text =
      "#include <torch/torch.h>\n"
      "#include <vector>\n"
      "int main() {\n"
      "  torch::Device device(torch::kCUDA);\n"
      "  torch::nn::Linear fc(4, 1);\n"
      "  fc->to(device);\n"
      "  torch::optim::SGD sgd(fc->parameters(), 0.1);\n"
      "  std::vector<torch::Tensor> losses;\n"
      "  for (int i = 0; i < 10; ++i) {\n"
      "    auto x = torch::zeros({2, 4}).to(device);\n"
      "    auto loss = fc(x).sum();\n"
      "    loss.backward();\n"
      "    sgd.step();\n"
      "    losses.push_back(loss);\n"
      "  }\n"
      "}\n";
  std::string fixed = fix_all(f, text);
  EXPECT_NE(fixed.find("torch::zeros({2, 4}, torch::TensorOptions().device(device));"), std::string::npos) << fixed;
  EXPECT_NE(fixed.find("losses.push_back(loss.detach());"), std::string::npos) << fixed;
}

// --- bad input -----------------------------------------------------------------------------

TEST(CppBadInput, MissingHeaderIsNamedAndTheRestIsAnalysed) {
  gpulint::testing::TempDir dir;
  fs::path f = dir.path() / "train.cpp";
  std::string text =
      "#include <torch/torch.h>\n"
      "#include \"project/does_not_exist.h\"\n"
      "int main() {\n"
      "  auto ds = torch::data::datasets::MNIST(\"d\").map(torch::data::transforms::Stack<>());\n"
      "  auto loader = torch::data::make_data_loader(std::move(ds), 64);\n"
      "  for (auto& b : *loader) (void)b;\n"
      "}\n";
  auto r = analyze_text(f, text);
  ASSERT_TRUE(r.syntax_error);
  EXPECT_NE(r.syntax_error->message.find("project/does_not_exist.h"), std::string::npos) << r.syntax_error->message;
  EXPECT_EQ(SourceFile(f.string(), text).line_of(r.syntax_error->offset), 1u);  // the #include line
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "DL001");
}

TEST(CppBadInput, TextThatIsNotCpp) {
  gpulint::testing::TempDir dir;
  fs::path f = dir.path() / "notes.cpp";
  auto r = analyze_text(f, "import torch\nfor x in range(3):\n    print(x)\n");
  ASSERT_TRUE(r.syntax_error);
  EXPECT_GE(r.syntax_error->error_count, 1u);
  EXPECT_TRUE(r.diagnostics.empty());
}

TEST(CppBadInput, MalformedCompileCommandsIsAnErrorNamingTheFile) {
  gpulint::testing::TempDir dir;
  fs::create_directories(dir.path() / "build");
  std::ofstream(dir.path() / "build/compile_commands.json") << "[{\"directory\": \"/x\", \"file\": ";
  cpp::CppOptions o;
  o.build_dir = (dir.path() / "build").string();
  std::string err;
  EXPECT_FALSE(cpp::CppProject::open(o, &err));
  EXPECT_NE(err.find("compile_commands.json"), std::string::npos) << err;
  // Found upward from a file (no -p): an error on the file, not a crash.
  fs::create_directories(dir.path() / "src");
  std::ofstream(dir.path() / "compile_commands.json") << "{not json";
  cpp::CppOptions up;
  up.note = [](const std::string&) {};
  auto p = cpp::CppProject::open(up, &err);
  ASSERT_TRUE(p);
  auto r = p->analyze(SourceFile((dir.path() / "src/a.cpp").string(), "int main() {}\n"),
                      FileSettings::all_rules_enabled());
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find((dir.path() / "compile_commands.json").string()), std::string::npos) << *r.error;
}

// --- NOLINT --------------------------------------------------------------------------------

TEST(CppSuppression, NolintForms) {
  std::string text =
      "a(); // NOLINT\n"
      "b(); // NOLINT(DL001)\n"
      "c(); // NOLINT(MEM001, bugprone-foo)\n"
      "// NOLINTNEXTLINE(dl001)\n"
      "d();\n"
      "e(); // NOLINTXYZ\n"
      "f(); // NOLINT(bugprone-only)\n";
  SourceFile src("t.cpp", text);
  std::vector<Comment> comments;
  for (std::size_t p = text.find("//"); p != std::string::npos; p = text.find("//", p + 2)) {
    std::size_t e = text.find('\n', p);
    comments.push_back({static_cast<uint32_t>(p), static_cast<uint32_t>(e)});
  }
  std::vector<Diagnostic> ds;
  for (uint32_t line = 0; line < 7; ++line) {
    Diagnostic d;
    d.code = "DL001";
    d.start = src.line_start(line);
    d.end = d.start + 1;
    ds.push_back(d);
  }
  uint32_t n = apply_cpp_suppressions(src, comments, ds);
  std::set<uint32_t> left;
  for (const auto& d : ds) left.insert(src.line_of(d.start));
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(left, (std::set<uint32_t>{2, 3, 5, 6}));
}

}  // namespace

#endif  // GPULINT_CPP
