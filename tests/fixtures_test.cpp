// The data-driven fixture test: every fixtures/python/<RULE>/*.py and fixtures/demo/*.py is
// analysed with every rule enabled; the diagnostics must be exactly the `# expect: CODE ...`
// annotations (line and code). Fix fixtures (fixtures/python/fixes/<rule>_<name>.py with a
// `.fixed` twin) must fix to exactly the `.fixed` text, and fixing that again changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "analyzer/analysis.h"
#include "analyzer/fixer.h"
#include "analyzer/python/syntax.h"
#include "analyzer/rule.h"

namespace fs = std::filesystem;
using namespace gpulint;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

FileSettings all_rules_settings() { return FileSettings::all_rules_enabled(); }

// (1-based line, code) pairs from `# expect: A B` comments — read from real comment nodes.
std::set<std::pair<uint32_t, std::string>> expectations(const SourceFile& src) {
  std::set<std::pair<uint32_t, std::string>> out;
  auto tree = python::Tree::parse(src.text());
  auto sum = python::summarize(tree.root());
  for (auto [s, e] : sum.comments) {
    std::string_view c = src.text().substr(s, e - s);
    auto pos = c.find("expect:");
    if (pos == std::string_view::npos) continue;
    std::istringstream words(std::string(c.substr(pos + 7)));
    std::string w;
    while (words >> w) {
      if (w == "#") break;
      out.insert({src.line_of(s) + 1, w});
    }
  }
  return out;
}

std::vector<fs::path> files_under(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

const fs::path kRoot = GPULINT_SOURCE_DIR;

std::vector<std::string> annotated_fixtures() {
  std::vector<std::string> out;
  for (const auto& sub : {"fixtures/python", "fixtures/demo"})
    for (const auto& p : files_under(kRoot / sub, ".py"))
      if (p.parent_path().filename() != "fixes") out.push_back(fs::relative(p, kRoot).string());
  return out;
}

std::vector<std::string> fix_fixtures() {
  std::vector<std::string> out;
  for (const auto& p : files_under(kRoot / "fixtures/python/fixes", ".py"))
    out.push_back(fs::relative(p, kRoot).string());
  return out;
}

std::string param_name(const testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (auto& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class Fixture : public testing::TestWithParam<std::string> {};

TEST_P(Fixture, DiagnosticsMatchExpectations) {
  fs::path path = kRoot / GetParam();
  SourceFile src(path.string(), read(path));
  auto report = analyze_python(src, all_rules_settings());
  EXPECT_FALSE(report.syntax_error.has_value()) << "fixture does not parse cleanly";
  std::set<std::pair<uint32_t, std::string>> got;
  std::ostringstream detail;
  for (const auto& d : report.diagnostics) {
    uint32_t line = src.line_of(d.start) + 1;
    got.insert({line, d.code});
    detail << "  " << line << ": " << d.code << " " << d.message << "\n";
  }
  auto want = expectations(src);
  std::ostringstream diff;
  for (const auto& w : want)
    if (!got.count(w)) diff << "  missing  " << GetParam() << ":" << w.first << " " << w.second << "\n";
  for (const auto& g : got)
    if (!want.count(g)) diff << "  unexpected " << GetParam() << ":" << g.first << " " << g.second << "\n";
  EXPECT_TRUE(diff.str().empty()) << diff.str() << "all diagnostics:\n" << detail.str();
}

INSTANTIATE_TEST_SUITE_P(Python, Fixture, testing::ValuesIn(annotated_fixtures()), param_name);

class FixFixture : public testing::TestWithParam<std::string> {};

TEST_P(FixFixture, FixProducesExpectedTextAndIsIdempotent) {
  fs::path path = kRoot / GetParam();
  fs::path fixed_path = path;
  fixed_path += ".fixed";
  ASSERT_TRUE(fs::exists(fixed_path)) << "missing " << fixed_path;
  std::string rule = path.filename().string().substr(0, path.filename().string().find('_'));
  std::transform(rule.begin(), rule.end(), rule.begin(), ::toupper);
  const Rule* fixture_rule = find_rule(rule);
  ASSERT_NE(fixture_rule, nullptr) << "no rule " << rule;
  bool unsafe = fixture_rule->info().fix == FixSafety::Unsafe;
  auto settings = all_rules_settings();
  auto analyze = [&](const SourceFile& s) { return analyze_python(s, settings); };

  SourceFile src(path.string(), read(path));
  auto initial = analyze(src);
  bool has_rule = std::any_of(initial.diagnostics.begin(), initial.diagnostics.end(),
                              [&](const Diagnostic& d) { return d.code == rule && d.fix; });
  ASSERT_TRUE(has_rule) << "no fixable " << rule << " diagnostic in " << GetParam();
  auto result = fix_source(src, initial, unsafe, analyze);
  ASSERT_FALSE(result.error) << *result.error;
  EXPECT_EQ(result.text, read(fixed_path));
  EXPECT_EQ(gpulint::python_syntax_error_count(result.text), 0u);

  SourceFile again(path.string(), result.text);
  auto second = fix_source(again, analyze(again), unsafe, analyze);
  EXPECT_FALSE(second.changed) << "a second --fix changed the file:\n" << second.text;
}

INSTANTIATE_TEST_SUITE_P(Python, FixFixture, testing::ValuesIn(fix_fixtures()), param_name);

TEST(FixtureCorpus, EveryRuleHasTenFixturesAndEnoughNegatives) {
  for (const char* rule : {"DL001", "DL002", "DEV001", "DEV002", "DEV003", "MEM001"}) {
    auto files = files_under(kRoot / "fixtures/python" / rule, ".py");
    EXPECT_GE(files.size(), 10u) << rule;
    std::size_t pos = 0, neg = 0;
    for (const auto& f : files) {
      SourceFile src(f.string(), read(f));
      bool any = false;
      for (const auto& e : expectations(src)) any |= e.second == rule;
      (any ? pos : neg)++;
    }
    EXPECT_GE(neg, pos) << rule << ": fewer negative fixtures than positive ones";
    EXPECT_GE(pos, 1u) << rule;
  }
}

}  // namespace
