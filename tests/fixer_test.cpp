// Fixes: choosing non-overlapping fixes, rounds until stable (idempotence), refusing results
// that break the parse, atomic writes that keep mode, BOM and CRLF, and --diff writing nothing.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <sys/stat.h>

#include "analyzer/driver.h"
#include "analyzer/fixer.h"
#include "tests/test_util.h"

namespace gpulint {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::TempDir;

Diagnostic with_fix(std::string code, Applicability a, std::vector<Edit> edits) {
  Diagnostic d;
  d.code = std::move(code);
  d.message = "m";
  if (!edits.empty()) {
    d.start = edits.front().start;
    d.end = edits.front().end;
  }
  d.fix = Fix{a, "fix it", std::move(edits)};
  return d;
}

TEST(ApplyFixes, NonOverlappingFixesAllApply) {
  std::string text = "loader = DataLoader(ds)\nmodel = Net()\n";
  std::vector<Diagnostic> ds = {
      with_fix("DL002", Applicability::Safe, {{22, 22, ", pin_memory=True"}}),
      with_fix("DEV001", Applicability::Safe, {{37, 37, ".cuda()"}}),
  };
  std::map<std::string, uint32_t> fixed;
  auto out = apply_fixes_once(text, ds, false, &fixed);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "loader = DataLoader(ds, pin_memory=True)\nmodel = Net().cuda()\n");
  EXPECT_EQ(fixed["DL002"], 1u);
  EXPECT_EQ(fixed["DEV001"], 1u);
}

TEST(ApplyFixes, OverlappingOrTouchingFixWaitsForTheNextRound) {
  std::string text = "loader = DataLoader(ds)\n";
  std::vector<Diagnostic> ds = {
      with_fix("DL001", Applicability::Safe, {{22, 22, ", num_workers=4"}}),
      with_fix("DL002", Applicability::Safe, {{22, 22, ", pin_memory=True"}}),
      with_fix("DL003", Applicability::Safe, {{9, 23, "X"}}),
  };
  std::map<std::string, uint32_t> fixed;
  auto out = apply_fixes_once(text, ds, false, &fixed);
  ASSERT_TRUE(out);
  EXPECT_EQ(fixed.size(), 1u);
  EXPECT_EQ(fixed.begin()->second, 1u);
}

TEST(ApplyFixes, IdenticalEditsAreShared) {
  // Two fixes both add `import os` at the top: it is inserted once, both fixes apply.
  std::string text = "import torch\na = DataLoader(ds)\nb = DataLoader(ds)\n";
  std::vector<Diagnostic> ds = {
      with_fix("DL001", Applicability::Safe, {{0, 0, "import os\n"}, {30, 30, ", num_workers=os.cpu_count()"}}),
      with_fix("DL001", Applicability::Safe, {{0, 0, "import os\n"}, {49, 49, ", num_workers=os.cpu_count()"}}),
  };
  std::map<std::string, uint32_t> fixed;
  auto out = apply_fixes_once(text, ds, false, &fixed);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out,
            "import os\nimport torch\na = DataLoader(ds, num_workers=os.cpu_count())\n"
            "b = DataLoader(ds, num_workers=os.cpu_count())\n");
  EXPECT_EQ(fixed["DL001"], 2u);
}

TEST(ApplyFixes, ApplicabilityAndBadEdits) {
  std::string text = "loader = DataLoader(ds)\n";
  std::vector<Diagnostic> unsafe = {
      with_fix("DL001", Applicability::Unsafe, {{22, 22, ", num_workers=4"}})};
  EXPECT_FALSE(apply_fixes_once(text, unsafe, false, nullptr));
  EXPECT_TRUE(apply_fixes_once(text, unsafe, true, nullptr));
  std::vector<Diagnostic> display = {
      with_fix("DL001", Applicability::DisplayOnly, {{22, 22, ", num_workers=4"}})};
  EXPECT_FALSE(apply_fixes_once(text, display, true, nullptr));
  std::vector<Diagnostic> out_of_range = {with_fix("DL001", Applicability::Safe, {{200, 300, "x"}})};
  EXPECT_FALSE(apply_fixes_once(text, out_of_range, false, nullptr));
  std::vector<Diagnostic> self_overlap = {
      with_fix("DL001", Applicability::Safe, {{5, 10, "a"}, {8, 12, "b"}})};
  EXPECT_FALSE(apply_fixes_once(text, self_overlap, false, nullptr));
  EXPECT_TRUE(fix_applies(Fix{Applicability::Safe, "", {}}, false));
  EXPECT_FALSE(fix_applies(Fix{Applicability::Unsafe, "", {}}, false));
}

// A stand-in analyser: every `DataLoader(...)` call without `pin_memory` gets a safe fix
// inserting it, and one without `num_workers` an unsafe fix; both insert at the same point
// (before the closing parenthesis), so they need two rounds.
FileReport fake_analyze(const SourceFile& s) {
  FileReport r;
  std::string_view t = s.text();
  for (std::size_t pos = t.find("DataLoader("); pos != std::string_view::npos;
       pos = t.find("DataLoader(", pos + 1)) {
    std::size_t close = t.find(')', pos);
    if (close == std::string_view::npos) break;
    std::string_view call = t.substr(pos, close - pos);
    auto add = [&](const char* code, Applicability a, const char* arg) {
      Diagnostic d;
      d.code = code;
      d.message = "m";
      d.start = static_cast<uint32_t>(pos);
      d.end = static_cast<uint32_t>(pos + 10);
      d.fix = Fix{a, "add", {{static_cast<uint32_t>(close), static_cast<uint32_t>(close), arg}}};
      r.diagnostics.push_back(d);
    };
    if (call.find("num_workers") == std::string_view::npos)
      add("DL001", Applicability::Unsafe, ", num_workers=4");
    if (call.find("pin_memory") == std::string_view::npos)
      add("DL002", Applicability::Safe, ", pin_memory=True");
  }
  return r;
}

TEST(FixSource, RoundsUntilStableAndIdempotent) {
  SourceFile src("train.py", "a = DataLoader(ds)\nb = DataLoader(ds2, batch_size=8)\n");
  FixResult r = fix_source(src, fake_analyze(src), true, fake_analyze);
  ASSERT_FALSE(r.error);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.text,
            "a = DataLoader(ds, num_workers=4, pin_memory=True)\n"
            "b = DataLoader(ds2, batch_size=8, num_workers=4, pin_memory=True)\n");
  EXPECT_EQ(r.rounds, 2u);
  EXPECT_EQ(r.fixed["DL001"], 2u);
  EXPECT_EQ(r.fixed["DL002"], 2u);
  EXPECT_TRUE(r.report.diagnostics.empty());
  // A second run changes nothing.
  SourceFile again("train.py", r.text);
  FixResult r2 = fix_source(again, fake_analyze(again), true, fake_analyze);
  EXPECT_FALSE(r2.changed);
  EXPECT_EQ(r2.text, r.text);
}

TEST(FixSource, SafeOnlyLeavesUnsafeDiagnostics) {
  SourceFile src("train.py", "a = DataLoader(ds)\n");
  FixResult r = fix_source(src, fake_analyze(src), false, fake_analyze);
  EXPECT_EQ(r.text, "a = DataLoader(ds, pin_memory=True)\n");
  ASSERT_EQ(r.report.diagnostics.size(), 1u);
  EXPECT_EQ(r.report.diagnostics[0].code, "DL001");
}

TEST(FixSource, StopsAfterTenRounds) {
  // A rule that always proposes another edit must not loop forever.
  auto endless = [](const SourceFile& s) {
    FileReport r;
    Diagnostic d;
    d.code = "DL002";
    d.fix = Fix{Applicability::Safe, "grow", {{0, 0, "#\n"}}};
    (void)s;
    r.diagnostics.push_back(d);
    return r;
  };
  SourceFile src("train.py", "x = 1\n");
  FixResult r = fix_source(src, endless(src), false, endless);
  EXPECT_EQ(r.rounds, kMaxFixRounds);
  std::string expected;
  for (uint32_t i = 0; i < kMaxFixRounds; ++i) expected += "#\n";
  EXPECT_EQ(r.text, expected + "x = 1\n");
}

TEST(FixSource, RefusesAResultThatNoLongerParses) {
  auto breaking = [](const SourceFile& s) {
    FileReport r;
    if (s.text().find("((") != std::string_view::npos) return r;
    Diagnostic d;
    d.code = "DL001";
    d.fix = Fix{Applicability::Safe, "break it", {{4, 4, "(("}}};
    r.diagnostics.push_back(d);
    return r;
  };
  SourceFile src("train.py", "x = DataLoader(ds)\n");
  FixResult r = fix_source(src, breaking(src), false, breaking);
  ASSERT_TRUE(r.error);
  EXPECT_THAT(*r.error, HasSubstr("syntax error"));
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.text, src.text());
  EXPECT_EQ(r.report.diagnostics.size(), 1u);  // the original findings are kept
}

TEST(AtomicWrite, KeepsModeAndLeavesNoTempFiles) {
  TempDir d;
  auto p = d.write("train.py", "old\n");
  ASSERT_EQ(::chmod(p.c_str(), 0751), 0);
  std::string err;
  ASSERT_TRUE(write_file_atomically(p.string(), "new contents\n", &err)) << err;
  EXPECT_EQ(testing::read_file(p), "new contents\n");
  struct stat st{};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
  int entries = 0;
  for (auto& e : fs::directory_iterator(d.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1);
}

TEST(AtomicWrite, WritesThroughSymlinks) {
  TempDir d;
  auto target = d.write("real/train.py", "old\n");
  ASSERT_EQ(::symlink(target.c_str(), (d / "link.py").c_str()), 0);
  std::string err;
  ASSERT_TRUE(write_file_atomically((d / "link.py").string(), "new\n", &err)) << err;
  EXPECT_TRUE(fs::is_symlink(d / "link.py"));
  EXPECT_EQ(testing::read_file(target), "new\n");
}

TEST(AtomicWrite, FailureLeavesTheOriginal) {
  std::string err;
  EXPECT_FALSE(write_file_atomically("/nonexistent-dir-gpulint/x.py", "x", &err));
  EXPECT_FALSE(err.empty());
}

TEST(UnifiedDiff, Format) {
  std::string a = "import torch\nloader = DataLoader(ds)\nfor x in loader:\n    pass\n";
  std::string b = "import torch\nloader = DataLoader(ds, pin_memory=True)\nfor x in loader:\n    pass\n";
  EXPECT_EQ(unified_diff(a, b, "train.py", "train.py"),
            "--- train.py\n+++ train.py\n@@ -1,4 +1,4 @@\n import torch\n"
            "-loader = DataLoader(ds)\n+loader = DataLoader(ds, pin_memory=True)\n"
            " for x in loader:\n     pass\n");
  EXPECT_EQ(unified_diff(a, a, "x", "x"), "");
  // Insertion at the top, no trailing newline.
  EXPECT_EQ(unified_diff("x = 1", "import os\nx = 1", "t.py", "t.py"),
            "--- t.py\n+++ t.py\n@@ -1 +1,2 @@\n+import os\n x = 1\n\\ No newline at end of file\n");
}

TEST(UnifiedDiff, SeparateHunksForDistantChanges) {
  std::string a, b;
  for (int i = 0; i < 40; ++i) {
    a += "line" + std::to_string(i) + "\n";
    b += (i == 5 || i == 30 ? "LINE" : "line") + std::to_string(i) + "\n";
  }
  std::string diff = unified_diff(a, b, "a", "b");
  EXPECT_THAT(diff, HasSubstr("@@ -3,7 +3,7 @@"));
  EXPECT_THAT(diff, HasSubstr("@@ -28,7 +28,7 @@"));
}

// --fix through the driver: mode, BOM and CRLF survive; --diff writes nothing.
TEST(DriverFix, KeepsModeBomAndCrlf) {
  TempDir d;
  std::string original = "\xEF\xBB\xBFimport torch\r\nloader = DataLoader(ds)\r\nprint(1)\r\n";
  auto p = d.write("train.py", original);
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  FileTask t;
  t.path = p.string();
  DriverOptions o;
  o.fix_mode = FixMode::Apply;
  o.unsafe_fixes = true;
  o.analyze = [](const SourceFile& s, const FileSettings&) { return fake_analyze(s); };
  auto out = run_tasks({t}, o);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].error) << *out[0].error;
  EXPECT_TRUE(out[0].changed);
  EXPECT_EQ(testing::read_file(p),
            "\xEF\xBB\xBFimport torch\r\nloader = DataLoader(ds, num_workers=4, pin_memory=True)"
            "\r\nprint(1)\r\n");
  struct stat st{};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  // Fixing again changes nothing.
  auto again = run_tasks({t}, o);
  EXPECT_FALSE(again[0].changed);
}

TEST(DriverFix, DiffWritesNothing) {
  TempDir d;
  std::string original = "import torch\nloader = DataLoader(ds)\n";
  auto p = d.write("train.py", original);
  FileTask t;
  t.path = p.string();
  t.display = "train.py";
  DriverOptions o;
  o.fix_mode = FixMode::Diff;
  o.analyze = [](const SourceFile& s, const FileSettings&) { return fake_analyze(s); };
  auto out = run_tasks({t}, o);
  EXPECT_TRUE(out[0].changed);
  EXPECT_EQ(testing::read_file(p), original);
  EXPECT_EQ(out[0].diff,
            "--- train.py\n+++ train.py\n@@ -1,2 +1,2 @@\n import torch\n"
            "-loader = DataLoader(ds)\n+loader = DataLoader(ds, pin_memory=True)\n");
  EXPECT_EQ(out[0].fixed.at("DL002"), 1u);
}

TEST(DriverFix, RealRulesFixTheTrainingScript) {
  TempDir d;
  auto p = d.write("train.py", testing::kTrainScript);
  FileTask t;
  t.path = p.string();
  t.settings = FileSettings::all_rules_enabled();
  DriverOptions o;
  o.fix_mode = FixMode::Apply;
  o.unsafe_fixes = true;
  auto out = run_tasks({t}, o);
  ASSERT_FALSE(out[0].error) << *out[0].error;
  EXPECT_TRUE(out[0].changed);
  std::string fixed = testing::read_file(p);
  EXPECT_THAT(fixed, HasSubstr("pin_memory=True"));
  EXPECT_THAT(fixed, HasSubstr("num_workers="));
  EXPECT_EQ(python_syntax_error_count(fixed), 0u);
  auto again = run_tasks({t}, o);
  EXPECT_FALSE(again[0].changed) << "second --fix changed the file";
  EXPECT_EQ(testing::read_file(p), fixed);
}

}  // namespace
}  // namespace gpulint
