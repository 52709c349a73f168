// The C++ fixtures: every fixtures/cpp/<RULE>/*.{cpp,h,hpp} (a header: analysed as its own main
// file, as a header-only trainer class is) is parsed by the Clang front end against
// Debian's libtorch-dev headers (fallback flags, the cached <torch/torch.h> PCH) and must
// (1) compile without a single clang error — so each fixture is known to be valid LibTorch
// C++ — and (2) produce exactly the `// expect: CODE ...` annotations (line and code).
// Also: NOLINT parsing, compile_commands.json errors, missing headers, non-C++ input, fixes.
#ifdef GPULINT_CPP

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analyzer/analysis.h"
#include "analyzer/cpp/compile_flags.h"
#include "analyzer/cpp/frontend.h"
#include "analyzer/driver.h"
#include "analyzer/fixer.h"
#include "analyzer/rule.h"
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
    if (e.is_regular_file() && is_cpp_file_path(e.path()) && e.path().parent_path().filename() != "fixes")
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

// A fixture in a subdirectory of its rule's directory (fixtures/cpp/DEV003/agent_called_per_step/
// agent.cpp) is one file of a program: every file of that directory is analysed in one run of
// the driver, as `gpulint check` analyses a repository, so that findings that depend on another
// file (resolve_cross_file) are decided. Returns the report of `path` from that run (one run
// per directory, kept for its other files).
FileReport analyze_in_program(const fs::path& path) {
  static std::map<fs::path, std::map<fs::path, FileReport>> runs;
  if (auto it = runs.find(path.parent_path()); it != runs.end()) return it->second.at(path);
  std::vector<FileTask> tasks;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(path.parent_path()))
    if (e.is_regular_file() && is_cpp_file_path(e.path())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    FileTask t;
    t.path = f.string();
    t.settings = FileSettings::all_rules_enabled();
    tasks.push_back(std::move(t));
  }
  DriverOptions opt;
  opt.threads = 1;
  std::vector<FileReport> reports(tasks.size());
  opt.analyze = [&](const SourceFile& s, const FileSettings& st) {
    FileReport r = project().analyze(s, st);
    for (std::size_t i = 0; i < tasks.size(); ++i)
      if (tasks[i].path == s.path()) reports[i] = r;
    return r;
  };
  std::vector<FileOutcome> outcomes = run_tasks(tasks, opt);
  std::map<fs::path, FileReport>& run = runs[path.parent_path()];
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    reports[i].diagnostics = outcomes[i].diagnostics;
    reports[i].pending.clear();
    run[files[i]] = std::move(reports[i]);
  }
  return run.at(path);
}

TEST_P(CppFixture, CompilesAndDiagnosticsMatchExpectations) {
  fs::path path = kRoot / GetParam();
  SourceFile src(path.string(), read(path));
  bool in_program = fs::relative(path, kRoot / "fixtures/cpp").parent_path().has_parent_path();
  FileReport report = in_program ? analyze_in_program(path) : project().analyze(src, FileSettings::all_rules_enabled());
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
      if (fs::path(rel).parent_path().filename() != rule) continue;  // programs are extra
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

// Fix fixtures: fixtures/cpp/fixes/<RULE>_<name>.cpp with a `.fixed` twin. The fixture
// compiles, has a fixable diagnostic of RULE, `--fix` (unsafe fixes when RULE's are unsafe)
// produces exactly the `.fixed` text, the `.fixed` text compiles (clang, with the same flags
// and PCH) and leaves no fixable diagnostic, and fixing it again changes nothing.
std::vector<std::string> cpp_fix_fixtures() {
  std::vector<std::string> out;
  fs::path dir = kRoot / "fixtures/cpp/fixes";
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".cpp") out.push_back(fs::relative(e.path(), kRoot).string());
  std::sort(out.begin(), out.end());
  return out;
}

class CppFixFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CppFixFixture, FixProducesExpectedTextThatCompilesAndIsIdempotent) {
  fs::path path = kRoot / GetParam();
  fs::path fixed_path = path;
  fixed_path += ".fixed";
  ASSERT_TRUE(fs::exists(fixed_path)) << "missing " << fixed_path;
  std::string rule = path.filename().string().substr(0, path.filename().string().find('_'));
  const Rule* fixture_rule = find_rule(rule);
  ASSERT_NE(fixture_rule, nullptr) << "no rule " << rule;
  bool unsafe = fixture_rule->info().fix == FixSafety::Unsafe;
  auto analyze = [&](const SourceFile& s) { return project().analyze(s, FileSettings::all_rules_enabled()); };

  SourceFile src(path.string(), read(path));
  FileReport initial = analyze(src);
  ASSERT_FALSE(initial.syntax_error) << "not valid LibTorch C++: " << initial.syntax_error->message;
  ASSERT_TRUE(std::any_of(initial.diagnostics.begin(), initial.diagnostics.end(),
                          [&](const Diagnostic& d) { return d.code == rule && d.fix && !d.fix->edits.empty(); }))
      << "no fixable " << rule << " diagnostic in " << GetParam();
  FixResult result = fix_source(src, initial, unsafe, analyze);
  ASSERT_FALSE(result.error) << *result.error;
  EXPECT_EQ(result.text, read(fixed_path));

  // The fixed text is valid C++ for clang (the same command and PCH as the analysis).
  SourceFile fixed(path.string(), result.text);
  FileReport after = analyze(fixed);
  EXPECT_FALSE(after.syntax_error) << "the fixed file does not compile: " << after.syntax_error->message;
  for (const Diagnostic& d : after.diagnostics)
    EXPECT_FALSE(d.code == rule && d.fix && fix_applies(*d.fix, unsafe))
        << "a fixable " << rule << " is left at byte " << d.start << ": " << d.message;
  FixResult second = fix_source(fixed, after, unsafe, analyze);
  EXPECT_FALSE(second.changed) << "a second --fix changed the file:\n" << second.text;
}

INSTANTIATE_TEST_SUITE_P(Cpp, CppFixFixture, ::testing::ValuesIn(cpp_fix_fixtures()), param_name);

TEST(CppFixFixtureCorpus, EveryCppRuleWithAFixHasAFixFixture) {
  // The C++ front end builds fixes for these rules (DEV001 reports without one in C++).
  for (const char* rule : {"DL001", "DEV002", "DEV003", "MEM001"}) {
    bool found = false;
    for (const auto& rel : cpp_fix_fixtures()) found |= fs::path(rel).filename().string().rfind(std::string(rule) + "_", 0) == 0;
    EXPECT_TRUE(found) << "no fixtures/cpp/fixes/" << rule << "_*.cpp";
  }
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

// --- compile commands written for g++ --------------------------------------------------------

// GCC-only flags measured to stop clang 16's driver (analyzer/cpp/compile_flags.h).
const std::vector<std::string> kGccOnlyFlags = {
    "-fconcepts-diagnostics-depth=3", "-mno-direct-extern-access", "-fipa-pta", "-fno-ipa-cp-clone",
    "-fno-tree-loop-distribute-patterns", "-fno-var-tracking-assignments", "-fno-gnu-unique",
    "-fconstexpr-ops-limit=100000000", "-flto-partition=none", "-fabi-version=11", "-fno-lifetime-dse",
    "-mindirect-branch=thunk", "-fdiagnostics-urls=never", "-fanalyzer", "-fcoroutines",
    "-fsanitize=bounds-strict", "-fplugin=annobin", "-fdiagnostics-format=json", "-fprofile-use=/nonexistent/gcda"};
// Flags clang accepts (some with a warning that -w silences): kept as they are.
const std::vector<std::string> kKeptFlags = {
    "-Wno-maybe-uninitialized", "-fstack-clash-protection", "-fcf-protection=full", "-fno-semantic-interposition",
    "-fno-tree-vectorize", "-flto=auto", "-fdiagnostics-color=always", "-O2", "-g", "-DNDEBUG", "-fPIC", "-pthread"};

TEST(CppCompileFlags, GccOnlyFlagsAreLeftOutAndTheRestKept) {
  std::vector<std::string> flags = {"-isystem", "/usr/include/torch/csrc/api/include", "-std=gnu++17"};
  flags.insert(flags.end(), kGccOnlyFlags.begin(), kGccOnlyFlags.end());
  flags.insert(flags.end(), kKeptFlags.begin(), kKeptFlags.end());
  flags.insert(flags.end(), {"-aux-info", "protos.txt", "-dumpdir", "obj/", "-include", "-fipa-pta"});
  std::vector<std::string> dropped;
  auto out = cpp::clang_compatible_flags(flags, &dropped);
  std::vector<std::string> want = {"-isystem", "/usr/include/torch/csrc/api/include", "-std=gnu++17"};
  want.insert(want.end(), kKeptFlags.begin(), kKeptFlags.end());
  want.insert(want.end(), {"-include", "-fipa-pta"});  // a value of a known option is never judged
  EXPECT_EQ(out, want);
  std::vector<std::string> want_dropped = {"-aux-info", "protos.txt", "-dumpdir", "obj/"};
  want_dropped.insert(want_dropped.end(), kGccOnlyFlags.begin(), kGccOnlyFlags.end());
  EXPECT_EQ(dropped, want_dropped);
}

TEST(CppCompileFlags, NewerStandardsAreSpelledAsClang16Does) {
  std::vector<std::string> dropped;
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=c++23"}, &dropped), std::vector<std::string>{"-std=c++2b"});
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=gnu++26"}, nullptr), std::vector<std::string>{"-std=gnu++2b"});
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=c++20"}, nullptr), std::vector<std::string>{"-std=c++20"});
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0], "-std=c++23 → -std=c++2b");
}

TEST(CppCompileFlags, StandardsOlderThanLibTorchsMinimumAreRaisedToCpp14) {
  std::vector<std::string> dropped;
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=gnu++11"}, &dropped), std::vector<std::string>{"-std=gnu++14"});
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=c++11"}, nullptr), std::vector<std::string>{"-std=c++14"});
  EXPECT_EQ(cpp::clang_compatible_flags({"--std=c++0x"}, nullptr), std::vector<std::string>{"-std=c++14"});
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=c++98"}, nullptr), std::vector<std::string>{"-std=c++14"});
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=gnu++14"}, nullptr), std::vector<std::string>{"-std=gnu++14"});
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=c++17"}, nullptr), std::vector<std::string>{"-std=c++17"});
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0], "-std=gnu++11 → -std=gnu++14");
}

TEST(CppCompileFlags, StandardIsReadAsClangsDriverReadsIt) {
  // The separate form and LangStandard's aliases: found by the option table, not by spelling.
  std::vector<std::string> dropped;
  EXPECT_EQ(cpp::clang_compatible_flags({"--std", "c++11", "-O2"}, &dropped), (std::vector<std::string>{"-std=c++14", "-O2"}));
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0], "--std c++11 → -std=c++14");
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=gnu++0x"}, nullptr), std::vector<std::string>{"-std=gnu++14"});
  EXPECT_EQ(cpp::clang_compatible_flags({"-std=c++1y"}, nullptr), std::vector<std::string>{"-std=c++1y"});  // C++14
  EXPECT_EQ(cpp::clang_compatible_flags({"--std=gnu++2c"}, nullptr), std::vector<std::string>{"-std=gnu++2b"});
  // A value that is not a -std option is never read as one.
  EXPECT_EQ(cpp::clang_compatible_flags({"-D", "-std=c++11"}, nullptr), (std::vector<std::string>{"-D", "-std=c++11"}));
}

TEST(CppCompileFlags, CStandardsAreLeftOutOfAHeadersFlags) {
  EXPECT_EQ(cpp::without_c_standards({"-std=c11", "-DX", "--std", "gnu99", "-std=iso9899:1999", "-std=gnu++17"}),
            (std::vector<std::string>{"-DX", "-std=gnu++17"}));
  EXPECT_EQ(cpp::without_c_standards({"-std=c++23", "-I", "-std=c11"}), (std::vector<std::string>{"-std=c++23", "-I", "-std=c11"}));
}

// A compile_commands.json as CMake writes it for g++ (argv[0] /usr/bin/g++, gcc-only flags):
// the file is parsed as C++ without a clang error and its findings are reported.
TEST(CppCompileFlags, ACompileCommandsJsonWrittenForGppIsAnalysed) {
  gpulint::testing::TempDir dir;
  fs::create_directories(dir.path() / "src");
  fs::create_directories(dir.path() / "build");
  fs::copy_file(kRoot / "fixtures/cpp/DL001/mnist_batch_size_only.cpp", dir.path() / "src/train.cpp");
  fs::copy_file(kRoot / "fixtures/cpp/DL001/mnist_batch_size_only.cpp", dir.path() / "src/eval.cpp");
  auto command = [&](const std::string& compiler, const std::string& file) {
    // Once the gcc-only flags are left out these are the fallback flags: the PCH is shared.
    std::string args = "\"" + compiler + "\", \"-std=c++17\", \"-isystem/usr/include/torch/csrc/api/include\"";
    for (const auto& f : kGccOnlyFlags) args += ", \"" + f + "\"";
    args += ", \"-aux-info\", \"protos.txt\", \"-o\", \"x.o\", \"-c\", \"" + (dir.path() / "src" / file).string() + "\"";
    return "{\"directory\": \"" + (dir.path() / "build").string() + "\", \"file\": \"" + (dir.path() / "src" / file).string() +
           "\", \"arguments\": [" + args + "]}";
  };
  std::ofstream(dir.path() / "build/compile_commands.json")
      << "[" << command("/usr/bin/g++", "train.cpp") << ",\n" << command("gcc", "eval.cpp") << "]\n";
  std::vector<std::string> notes;
  cpp::CppOptions o;
  o.build_dir = (dir.path() / "build").string();
  o.note = [&](const std::string& n) { notes.push_back(n); };
  std::string err;
  auto p = cpp::CppProject::open(o, &err);
  ASSERT_TRUE(p) << err;
  for (const char* file : {"train.cpp", "eval.cpp"}) {
    fs::path f = dir.path() / "src" / file;
    auto r = p->analyze(SourceFile(f.string(), read(f)), FileSettings::all_rules_enabled());
    ASSERT_FALSE(r.error) << *r.error;
    EXPECT_FALSE(r.syntax_error) << file << ": " << r.syntax_error->message;
    ASSERT_EQ(r.diagnostics.size(), 1u) << file;
    EXPECT_EQ(r.diagnostics[0].code, "DL001");
  }
  ASSERT_EQ(notes.size(), 1u);  // one note per run, naming what was left out
  EXPECT_NE(notes[0].find("-fconcepts-diagnostics-depth=3"), std::string::npos) << notes[0];
}

// A project built as C++14 (`set(CMAKE_CXX_STANDARD 14)`, LibTorch 1.x's minimum) gets the same
// findings as the fallback flags' C++17: before C++17 a by-value argument or a returned
// temporary is wrapped in an elidable copy construction that C++17 elides from the AST, and the
// matchers must see through it (`torch::zeros(n).to(device)` was missed). Every single-file
// .cpp fixture, analysed through a compile_commands.json that says -std=gnu++14.
TEST(CppCompileFlags, Cpp14ProjectGetsTheFixturesExpectedFindings) {
  gpulint::testing::TempDir dir;
  std::vector<fs::path> files;
  for (const auto& rel : cpp_fixtures()) {
    fs::path f = kRoot / rel;
    bool in_program = fs::relative(f, kRoot / "fixtures/cpp").parent_path().has_parent_path();
    std::string text = read(f);
    if (in_program || f.extension() != ".cpp" || text.find("// fixture-missing-header:") != std::string::npos) continue;
    fs::path copy = dir.path() / (f.parent_path().filename().string() + "_" + f.filename().string());
    fs::copy_file(f, copy);
    files.push_back(copy);
  }
  ASSERT_GE(files.size(), 20u);
  std::ofstream db(dir.path() / "compile_commands.json");
  db << "[";
  for (std::size_t i = 0; i < files.size(); ++i)
    db << (i ? ",\n" : "") << "{\"directory\": \"" << dir.path().string() << "\", \"file\": \"" << files[i].string()
       << "\", \"command\": \"/usr/bin/c++ -isystem /usr/include/torch/csrc/api/include -std=gnu++14 -c "
       << files[i].string() << "\"}";
  db << "]\n";
  db.close();
  cpp::CppOptions o;
  o.build_dir = dir.path().string();
  o.note = [](const std::string&) {};
  std::string err;
  auto p = cpp::CppProject::open(o, &err);
  ASSERT_TRUE(p) << err;
  for (const fs::path& f : files) {
    std::string text = read(f);
    auto r = p->analyze(SourceFile(f.string(), text), FileSettings::all_rules_enabled());
    ASSERT_FALSE(r.error) << *r.error;
    EXPECT_FALSE(r.syntax_error) << f.filename() << ": " << r.syntax_error->message;
    SourceFile src(f.string(), text);
    std::set<std::pair<uint32_t, std::string>> got;
    for (const auto& d : r.diagnostics) got.insert({src.line_of(d.start) + 1, d.code});
    EXPECT_EQ(got, expectations(text)) << f.filename();
  }
}

// CMake's target_precompile_headers built with g++: `-include …/cmake_pch.hxx` in the command
// and GCC's `cmake_pch.hxx.gch` beside it, which clang would otherwise try to load as its own.
TEST(CppCompileFlags, GccPrecompiledHeaderBesideAnIncludeIsIgnored) {
  gpulint::testing::TempDir dir;
  fs::path pch_dir = dir.path() / "build/CMakeFiles/train.dir";
  fs::create_directories(pch_dir);
  fs::create_directories(dir.path() / "src");
  std::ofstream(pch_dir / "cmake_pch.hxx") << "#pragma once\ninline int steps() { return 10; }\n";
  std::ofstream(pch_dir / "cmake_pch.hxx.gch") << "gpch013 not a clang precompiled header";
  fs::path file = dir.path() / "src/train.cpp";
  std::string text = "int main() { return steps() - 10; }\n";
  std::ofstream(file) << text;
  std::ofstream(dir.path() / "build/compile_commands.json")
      << "[{\"directory\": \"" << (dir.path() / "build").string() << "\", \"file\": \"" << file.string()
      << "\", \"arguments\": [\"/usr/bin/c++\", \"-std=gnu++17\", \"-Winvalid-pch\", \"-include\", \""
      << (pch_dir / "cmake_pch.hxx").string() << "\", \"-o\", \"train.o\", \"-c\", \"" << file.string() << "\"]}]\n";
  cpp::CppOptions o;
  o.build_dir = (dir.path() / "build").string();
  o.note = [](const std::string&) {};
  std::string err;
  auto p = cpp::CppProject::open(o, &err);
  ASSERT_TRUE(p) << err;
  auto r = p->analyze(SourceFile(file.string(), text), FileSettings::all_rules_enabled());
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_FALSE(r.syntax_error) << r.syntax_error->message;
}

// --- headers -------------------------------------------------------------------------------

// A header is analysed as its own main file, parsed as C++ (a `.h` too).
TEST(CppHeader, HeaderOnlyTrainerIsAnalysedAsItsOwnMainFile) {
  gpulint::testing::TempDir dir;
  fs::path f = dir.path() / "classifier.h";
  std::string text =
      "#pragma once\n"
      "#include <torch/torch.h>\n"
      "class Classifier {\n"
      " public:\n"
      "  void train() {\n"
      "    auto ds = torch::data::datasets::MNIST(\"d\").map(torch::data::transforms::Stack<>());\n"
      "    auto loader = torch::data::make_data_loader(std::move(ds), 64);\n"
      "    for (auto& b : *loader) (void)b;\n"
      "  }\n"
      "};\n";
  auto r = analyze_text(f, text);
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_FALSE(r.syntax_error) << r.syntax_error->message;
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "DL001");
  EXPECT_EQ(SourceFile(f.string(), text).line_of(r.diagnostics[0].start), 6u);
  // A NOLINT in the header suppresses it there.
  std::string nolint = text;
  nolint.replace(nolint.find("64);"), 4, "64);  // NOLINT(DL001)");
  auto s = analyze_text(f, nolint);
  EXPECT_TRUE(s.diagnostics.empty());
  EXPECT_EQ(s.suppressed, 1u);
}

// A header that uses LibTorch without including it (the .cpp including it does so first) is
// parsed with <torch/torch.h>'s declarations loaded: no "undeclared identifier 'torch'".
TEST(CppHeader, HeaderRelyingOnItsIncluderForLibTorchIsAnalysed) {
  gpulint::testing::TempDir dir;
  fs::path f = dir.path() / "trainer.hpp";
  std::string text =
      "#pragma once\n"
      "#include <vector>\n"
      "struct Trainer {\n"
      "  torch::nn::Linear fc{20, 1};\n"
      "  std::vector<torch::Tensor> fit(torch::optim::SGD& sgd) {\n"
      "    std::vector<torch::Tensor> losses;\n"
      "    for (int step = 0; step < 100; ++step) {\n"
      "      auto loss = torch::mse_loss(fc->forward(torch::randn({8, 20})), torch::randn({8, 1}));\n"
      "      sgd.zero_grad();\n"
      "      loss.backward();\n"
      "      sgd.step();\n"
      "      losses.push_back(loss);\n"
      "    }\n"
      "    return losses;\n"
      "  }\n"
      "};\n";
  auto r = analyze_text(f, text);
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_FALSE(r.syntax_error) << r.syntax_error->message;
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "MEM001");
}

// A C header (C that is not valid C++, no LibTorch) is silent: no syntax error, no finding.
// A header with LibTorch that does not parse still gets its syntax error.
TEST(CppHeader, CHeaderIsSilentButABrokenLibTorchHeaderIsNot) {
  gpulint::testing::TempDir dir;
  fs::path c = dir.path() / "ring_buffer.h";
  std::string c_text =
      "#ifndef RING_BUFFER_H\n"
      "#define RING_BUFFER_H\n"
      "#include <stdlib.h>\n"
      "struct ring { int *data; int new; };\n"
      "static inline struct ring *ring_new(int n) {\n"
      "  struct ring *r = malloc(sizeof *r);\n"
      "  r->data = calloc(n, sizeof(int));\n"
      "  return r;\n"
      "}\n"
      "#endif\n";
  // Its own project, to see the notes: not even the fallback-flags line is printed for it.
  std::vector<std::string> notes;
  cpp::CppOptions o;
  o.note = [&](const std::string& n) { notes.push_back(n); };
  std::string err;
  auto p = cpp::CppProject::open(o, &err);
  ASSERT_TRUE(p) << err;
  auto r = p->analyze(SourceFile(c.string(), c_text), FileSettings::all_rules_enabled());
  EXPECT_FALSE(r.error);
  EXPECT_FALSE(r.syntax_error) << r.syntax_error->message;
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_TRUE(notes.empty()) << notes.front();
  // A missing include does not make it a LibTorch header (it is not re-parsed with LibTorch's
  // declarations, which would then be "used" by any file): still silent.
  std::string with_missing = "#include \"config.h\"\n" + c_text;
  auto m = p->analyze(SourceFile((dir.path() / "ring_config.h").string(), with_missing),
                      FileSettings::all_rules_enabled());
  EXPECT_FALSE(m.syntax_error) << m.syntax_error->message;
  EXPECT_TRUE(m.diagnostics.empty());
  // A comment or string naming `torch::` is no use of LibTorch either.
  std::string commented = "// a ring for torch::Tensor handles, see torch::data\n" + c_text;
  auto k = p->analyze(SourceFile((dir.path() / "ring_doc.h").string(), commented),
                      FileSettings::all_rules_enabled());
  EXPECT_FALSE(k.syntax_error) << k.syntax_error->message;
  // The same text as a C++ source is not silenced (only headers may be C).
  EXPECT_TRUE(analyze_text(dir.path() / "ring_buffer.cpp", c_text).syntax_error);
  auto broken = analyze_text(dir.path() / "model.hpp", "#include <torch/torch.h>\nstruct M { torch::Tensor t = ; };\n");
  ASSERT_TRUE(broken.syntax_error);
  EXPECT_EQ(broken.syntax_error->error_count, 1u) << broken.syntax_error->message;
}

// Not in compile_commands.json: the header gets the command clang interpolates from the nearest
// translation unit (its -I finds the project's include directory); parsed as C++ although the
// database's neighbour is a C file (its `-x c-header` and -std=gnu11 left out).
TEST(CppHeader, CommandIsInterpolatedFromTheDatabase) {
  gpulint::testing::TempDir dir;
  fs::create_directories(dir.path() / "src");
  fs::create_directories(dir.path() / "third_party/cfg/proj");
  fs::create_directories(dir.path() / "build");
  std::ofstream(dir.path() / "third_party/cfg/proj/config.hpp") << "#pragma once\nnamespace proj { constexpr int kBatch = 64; }\n";
  fs::path header = dir.path() / "src/trainer.h";
  std::string text =
      "#pragma once\n"
      "#include <proj/config.hpp>\n"
      "#include <torch/torch.h>\n"
      "inline void train() {\n"
      "  auto ds = torch::data::datasets::MNIST(\"d\").map(torch::data::transforms::Stack<>());\n"
      "  auto loader = torch::data::make_data_loader(std::move(ds), proj::kBatch);\n"
      "  for (auto& b : *loader) (void)b;\n"
      "}\n";
  std::ofstream(header) << text;
  auto entry = [&](const std::string& compiler, const std::string& file, const std::string& std) {
    return "{\"directory\": \"" + (dir.path() / "build").string() + "\", \"file\": \"" + (dir.path() / "src" / file).string() +
           "\", \"arguments\": [\"" + compiler + "\", \"" + std + "\", \"-I" + (dir.path() / "third_party/cfg").string() +
           "\", \"-isystem/usr/include/torch/csrc/api/include\", \"-c\", \"" + (dir.path() / "src" / file).string() + "\"]}";
  };
  // Only a C file in the database: the header's interpolated command says `-x c-header`.
  std::ofstream(dir.path() / "build/compile_commands.json") << "[" << entry("/usr/bin/gcc", "io.c", "-std=gnu11") << "]\n";
  cpp::CppOptions o;
  o.build_dir = (dir.path() / "build").string();
  o.use_pch = false;  // the flags differ from every other test's: no PCH of their own (one parse)
  o.note = [](const std::string&) {};
  std::string err;
  auto p = cpp::CppProject::open(o, &err);
  ASSERT_TRUE(p) << err;
  auto cmd = p->command_for(header, &err);
  ASSERT_TRUE(cmd) << err;
  EXPECT_EQ(cmd->source, cpp::CommandSource::Inferred);
  std::string joined;
  for (const auto& a : cmd->arguments) joined += a + " ";
  EXPECT_NE(joined.find("-I" + (dir.path() / "third_party/cfg").string()), std::string::npos) << joined;
  EXPECT_NE(joined.find("-x c-header"), std::string::npos) << joined;
  // The C file's -std=gnu11 is left out with its -x: the header is parsed as C++.
  auto c_only = p->analyze(SourceFile(header.string(), text), FileSettings::all_rules_enabled());
  ASSERT_FALSE(c_only.error) << *c_only.error;
  EXPECT_FALSE(c_only.syntax_error) << c_only.syntax_error->message;
  ASSERT_EQ(c_only.diagnostics.size(), 1u);
  EXPECT_EQ(c_only.diagnostics[0].code, "DL001");
  // (A C++ neighbour's interpolated command, sharing its PCH: tests/e2e/cpp_cmake_project.sh.)
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

// The comments of `text`: `// …` to the end of the line and `/* … */` (no strings in these tests).
std::vector<Comment> comments_of(const std::string& text) {
  std::vector<Comment> out;
  for (std::size_t p = 0; p + 1 < text.size();) {
    if (text.compare(p, 2, "//") == 0) {
      std::size_t e = std::min(text.find('\n', p), text.size());
      out.push_back({static_cast<uint32_t>(p), static_cast<uint32_t>(e)});
      p = e;
    } else if (text.compare(p, 2, "/*") == 0) {
      std::size_t e = text.find("*/", p + 2);
      e = e == std::string::npos ? text.size() : e + 2;
      out.push_back({static_cast<uint32_t>(p), static_cast<uint32_t>(e)});
      p = e;
    } else {
      ++p;
    }
  }
  return out;
}

// One diagnostic of `code` at the start of every line that begins with "x" (0-based lines).
std::vector<Diagnostic> diagnostics_on_x_lines(const SourceFile& src, const char* code = "DL001") {
  std::vector<Diagnostic> ds;
  for (uint32_t line = 0; line < src.line_count(); ++line) {
    if (src.line_text(line).substr(0, 1) != "x") continue;
    Diagnostic d;
    d.code = code;
    d.start = src.line_start(line);
    d.end = d.start + 1;
    ds.push_back(d);
  }
  return ds;
}

std::set<uint32_t> lines_left(const SourceFile& src, const std::vector<Diagnostic>& ds) {
  std::set<uint32_t> left;
  for (const auto& d : ds) left.insert(src.line_of(d.start));
  return left;
}

TEST(CppSuppression, NolintBeginEndRegions) {
  std::string text =
      "// NOLINTBEGIN(DL001)\n"          // 0
      "x1();\n"                          // 1  suppressed
      "x2();\n"                          // 2  suppressed
      "// NOLINTEND(DL001)\n"            // 3
      "x4();\n"                          // 4
      "/* NOLINTBEGIN */\n"              // 5
      "x6();\n"                          // 6  suppressed: bare BEGIN, every code
      "// NOLINTBEGIN(bugprone-foo)\n"   // 7  nested, for another tool
      "x8();\n"                          // 8  suppressed by the outer block
      "// NOLINTEND(bugprone-foo)\n"     // 9
      "/* NOLINTEND */\n"                // 10
      "// NOLINTBEGIN(MEM001)\n"         // 11
      "x12();\n"                         // 12 another code: kept
      "// NOLINTEND(MEM001)\n"           // 13
      "// NOLINTBEGIN( dl001 , other )\n"  // 14 whitespace in the list is ignored
      "x15();\n"                         // 15 suppressed
      "// NOLINTEND(dl001,other)\n"      // 16
      "x17(); // NOLINTBEGINX NOLINTENDING\n"  // 17 neither is a directive
      "x18();\n";                        // 18
  SourceFile src("t.cpp", text);
  auto ds = diagnostics_on_x_lines(src);
  std::vector<SuppressionError> errors;
  uint32_t n = apply_cpp_suppressions(src, comments_of(text), ds, &errors);
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(lines_left(src, ds), (std::set<uint32_t>{4, 12, 17, 18}));
  EXPECT_TRUE(errors.empty());
}

TEST(CppSuppression, RegionIsByPositionLikeClangTidy) {
  // clang-tidy compares offsets: a diagnostic after the BEGIN on the BEGIN's own line is inside,
  // one before the END on the END's line too; one after the END on its line is outside.
  std::string text =
      "a(); /* NOLINTBEGIN */ x();\n"
      "x(); /* NOLINTEND */ x();\n";
  SourceFile src("t.cpp", text);
  std::vector<Diagnostic> ds;
  for (std::size_t p = text.find("x()"); p != std::string::npos; p = text.find("x()", p + 1)) {
    Diagnostic d;
    d.code = "DL001";
    d.start = static_cast<uint32_t>(p);
    d.end = d.start + 3;
    ds.push_back(d);
  }
  ASSERT_EQ(ds.size(), 3u);
  uint32_t last = ds[2].start;
  EXPECT_EQ(apply_cpp_suppressions(src, comments_of(text), ds), 2u);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].start, last);
}

TEST(CppSuppression, UnmatchedBeginAndEndAreReportedAsClangTidyDoes) {
  // As clang-tidy 16: an END must close the innermost open BEGIN with the same check list;
  // what is left is unmatched, suppresses nothing, and is reported with clang-tidy's message.
  std::string text =
      "// NOLINTBEGIN(DL001)\n"   // 0  never closed (the END below names another list)
      "x1();\n"                   // 1  not suppressed
      "// NOLINTEND(MEM001)\n"    // 2  unmatched END
      "x3();\n"                   // 3
      "// NOLINTEND\n";           // 4  unmatched END
  SourceFile src("t.cpp", text);
  auto ds = diagnostics_on_x_lines(src);
  std::vector<SuppressionError> errors;
  EXPECT_EQ(apply_cpp_suppressions(src, comments_of(text), ds, &errors), 0u);
  EXPECT_EQ(lines_left(src, ds), (std::set<uint32_t>{1, 3}));
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].offset, 3u);  // the 'N' of NOLINTBEGIN
  EXPECT_EQ(errors[0].message, "unmatched 'NOLINTBEGIN' comment without a subsequent 'NOLINTEND' comment");
  EXPECT_EQ(src.line_of(errors[1].offset), 2u);
  EXPECT_EQ(errors[1].message, "unmatched 'NOLINTEND' comment without a previous 'NOLINTBEGIN' comment");
  EXPECT_EQ(src.line_of(errors[2].offset), 4u);

  // Crossed blocks: BEGIN(a) BEGIN(b) END(a) END(b) → END(a) is unmatched, b closes, a is left open.
  std::string crossed =
      "// NOLINTBEGIN(DL001)\n"
      "// NOLINTBEGIN(MEM001)\n"
      "x2();\n"
      "// NOLINTEND(DL001)\n"
      "// NOLINTEND(MEM001)\n";
  SourceFile src2("t.cpp", crossed);
  auto ds2 = diagnostics_on_x_lines(src2);
  errors.clear();
  EXPECT_EQ(apply_cpp_suppressions(src2, comments_of(crossed), ds2, &errors), 0u);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(src2.line_of(errors[0].offset), 0u);
  EXPECT_NE(errors[0].message.find("'NOLINTBEGIN'"), std::string::npos);
  EXPECT_EQ(src2.line_of(errors[1].offset), 3u);
  EXPECT_NE(errors[1].message.find("'NOLINTEND'"), std::string::npos);
}

TEST(CppSuppression, UnmatchedDirectivesAreReportedOnlyWhenADiagnosticReachesTheBlockCheck) {
  // clang-tidy reads the blocks (and reports the unmatched ones) only for a diagnostic that no
  // NOLINT / NOLINTNEXTLINE on its line already suppressed; a file without one stays silent.
  std::string text =
      "x0(); // NOLINT\n"
      "// NOLINTEND\n";
  SourceFile src("t.cpp", text);
  auto ds = diagnostics_on_x_lines(src);
  std::vector<SuppressionError> errors;
  EXPECT_EQ(apply_cpp_suppressions(src, comments_of(text), ds, &errors), 1u);
  EXPECT_TRUE(errors.empty());
  std::vector<Diagnostic> none;
  EXPECT_EQ(apply_cpp_suppressions(src, comments_of(text), none, &errors), 0u);
  EXPECT_TRUE(errors.empty());
  // A diagnostic that a matched block suppresses still reports another, unmatched END.
  std::string text2 =
      "// NOLINTBEGIN\n"
      "x1();\n"
      "// NOLINTEND\n"
      "// NOLINTEND\n";
  SourceFile src2("t.cpp", text2);
  auto ds2 = diagnostics_on_x_lines(src2);
  EXPECT_EQ(apply_cpp_suppressions(src2, comments_of(text2), ds2, &errors), 1u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(src2.line_of(errors[0].offset), 3u);
}

TEST(CppSuppression, UnmatchedEndIsAWarningLineFromTheCli) {
  gpulint::testing::TempDir dir;
  fs::path f = dir.path() / "train.cpp";
  std::string text =
      "#include <torch/torch.h>\n"
      "int main() {\n"
      "  auto ds = torch::data::datasets::MNIST(\"d\").map(torch::data::transforms::Stack<>());\n"
      "  auto loader = torch::data::make_data_loader(std::move(ds), 64);\n"
      "  // NOLINTEND(DL001)\n"
      "  for (auto& b : *loader) (void)b;\n"
      "}\n";
  std::ofstream(f) << text;
  DriverOptions opt;
  opt.threads = 1;
  opt.analyze = [](const SourceFile& s, const FileSettings& st) { return project().analyze(s, st); };
  FileTask task;
  task.path = f.string();
  task.display = "train.cpp";
  task.settings = FileSettings::all_rules_enabled();
  auto outcomes = run_tasks({task}, opt);
  ASSERT_EQ(outcomes.size(), 1u);
  ASSERT_EQ(outcomes[0].diagnostics.size(), 1u);  // the END suppresses nothing
  std::vector<std::string> nolint;
  for (const auto& w : outcomes[0].warnings)
    if (w.find("clang-tidy-nolint") != std::string::npos) nolint.push_back(w);
  ASSERT_EQ(nolint.size(), 1u);
  EXPECT_EQ(nolint[0],
            "warning: train.cpp:5:6: unmatched 'NOLINTEND' comment without a previous 'NOLINTBEGIN' "
            "comment [clang-tidy-nolint]");
}

}  // namespace

#endif  // GPULINT_CPP
