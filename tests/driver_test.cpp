// The driver: deterministic order over threads, per-file load errors that never stop the other
// files (binary, invalid UTF-8, unreadable, a directory, a dangling symlink), syntax warnings.
// (Deep nesting runs through the binary, under a timeout, in cli_test.cpp.)
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <unistd.h>

#include "analyzer/driver.h"
#include "tests/test_util.h"

namespace gpulint {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TempDir;

FileSettings all_rules_on() { return FileSettings::all_rules_enabled(); }

FileTask task(const std::filesystem::path& p, const std::string& display) {
  FileTask t;
  t.path = p.string();
  t.display = display;
  t.settings = all_rules_on();
  return t;
}

TEST(Driver, ResultsInTaskOrderWhateverTheThreadCount) {
  TempDir d;
  std::vector<FileTask> tasks;
  for (int i = 0; i < 40; ++i) {
    std::string name = "train_" + std::to_string(i) + ".py";
    d.write(name, i % 2 ? testing::kTrainScript : testing::kCleanScript);
    tasks.push_back(task(d / name, name));
  }
  DriverOptions one;
  one.threads = 1;
  DriverOptions many;
  many.threads = 8;
  auto a = run_tasks(tasks, one);
  auto b = run_tasks(tasks, many);
  ASSERT_EQ(a.size(), tasks.size());
  ASSERT_EQ(b.size(), tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(a[i].path, tasks[i].path);
    EXPECT_EQ(b[i].path, tasks[i].path);
    ASSERT_EQ(a[i].diagnostics.size(), b[i].diagnostics.size());
    for (std::size_t k = 0; k < a[i].diagnostics.size(); ++k) {
      EXPECT_EQ(a[i].diagnostics[k].code, b[i].diagnostics[k].code);
      EXPECT_EQ(a[i].diagnostics[k].start, b[i].diagnostics[k].start);
    }
    EXPECT_EQ(a[i].diagnostics.empty(), i % 2 == 0) << tasks[i].display;
    // The source is kept exactly when there is something to print.
    EXPECT_EQ(a[i].source.has_value(), !a[i].diagnostics.empty());
  }
}

TEST(Driver, TrainScriptFindings) {
  TempDir d;
  d.write("train.py", testing::kTrainScript);
  auto out = run_tasks({task(d / "train.py", "train.py")}, {});
  ASSERT_EQ(out.size(), 1u);
  std::set<std::string> codes;
  for (const auto& diag : out[0].diagnostics) codes.insert(diag.code);
  EXPECT_TRUE(codes.count("DL001"));
  EXPECT_TRUE(codes.count("DL002"));
  EXPECT_FALSE(out[0].error);
  EXPECT_TRUE(out[0].warnings.empty());
}

TEST(Driver, LoadErrorsDoNotStopOtherFiles) {
  TempDir d;
  d.write("a_train.py", testing::kTrainScript);
  d.write("b_binary.py", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10) + "import torch\n");
  d.write("c_latin1.py", "# -*- coding: latin-1 -*-\nname = 'caf\xE9'\n");
  std::filesystem::create_directories(d / "d_dir.py");
  ASSERT_EQ(::symlink("missing.py", (d / "e_dangling.py").c_str()), 0);
  d.write("f_train.py", testing::kTrainScript);
  std::vector<FileTask> tasks = {task(d / "a_train.py", "a_train.py"),
                                 task(d / "b_binary.py", "b_binary.py"),
                                 task(d / "c_latin1.py", "c_latin1.py"),
                                 task(d / "d_dir.py", "d_dir.py"),
                                 task(d / "e_dangling.py", "e_dangling.py"),
                                 task(d / "f_train.py", "f_train.py")};
  DriverOptions o;
  o.threads = 3;
  auto out = run_tasks(tasks, o);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_FALSE(out[0].error);
  EXPECT_FALSE(out[0].diagnostics.empty());
  ASSERT_TRUE(out[1].error);
  EXPECT_THAT(*out[1].error, StartsWith("error: b_binary.py: binary file"));
  ASSERT_TRUE(out[2].error);
  EXPECT_THAT(*out[2].error, StartsWith("error: c_latin1.py: invalid UTF-8 at line 2"));
  ASSERT_TRUE(out[3].error);
  EXPECT_THAT(*out[3].error, StartsWith("error: d_dir.py: is a directory"));
  ASSERT_TRUE(out[4].error);
  EXPECT_THAT(*out[4].error, StartsWith("error: e_dangling.py: cannot read"));
  EXPECT_FALSE(out[5].error);
  EXPECT_FALSE(out[5].diagnostics.empty());
}

TEST(Driver, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a mode-000 file anyway (covered above by a "
                                        "directory and a dangling symlink)";
  TempDir d;
  auto p = d.write("secret_train.py", testing::kTrainScript);
  ASSERT_EQ(::chmod(p.c_str(), 0), 0);
  auto out = run_tasks({task(p, "secret_train.py")}, {});
  ASSERT_TRUE(out[0].error);
  EXPECT_THAT(*out[0].error, StartsWith("error: secret_train.py: cannot read"));
}

TEST(Driver, StdinContent) {
  FileTask t;
  t.path = "-";
  t.content = testing::kTrainScript;
  t.settings = all_rules_on();
  auto out = run_tasks({t}, {});
  EXPECT_FALSE(out[0].error);
  EXPECT_FALSE(out[0].diagnostics.empty());
  FileTask bad = t;
  bad.content = std::string("x = '\xFF'\n");
  EXPECT_TRUE(run_tasks({bad}, {})[0].error);
}

TEST(Driver, SyntaxErrorIsOneWarningAndTheRestIsAnalysed) {
  TempDir d;
  std::string src = std::string(testing::kTrainScript) +
                    "\ndef evaluate(model, loader:\n    return 0\n\nprint(\"done\"\n";
  d.write("broken.py", src);
  auto out = run_tasks({task(d / "broken.py", "broken.py")}, {});
  ASSERT_EQ(out[0].warnings.size(), 1u);
  EXPECT_THAT(out[0].warnings[0], StartsWith("warning: broken.py:"));
  EXPECT_THAT(out[0].warnings[0], HasSubstr(": syntax error; analysed the code that parses"));
  EXPECT_FALSE(out[0].error);
  EXPECT_TRUE(out[0].syntax_error);
  EXPECT_FALSE(out[0].diagnostics.empty()) << "the code before the error is still analysed";
}

TEST(Driver, SyntaxWarningPosition) {
  SourceFile src("t.py", "x = 1\ny = (\n");
  EXPECT_EQ(syntax_warning("t.py", src, SyntaxErrorNote{10, 1}),
            "warning: t.py:2:5: syntax error; analysed the code that parses");
}

// Findings that depend on another file: kept when some file calls their function in a loop,
// directly or through functions that are themselves called per iteration; dropped otherwise.
TEST(Driver, CrossFileFindingsStandOnlyWhenTheirFunctionRunsPerIteration) {
  auto pending = [](uint32_t start, const std::string& fn) {
    Diagnostic d;
    d.code = "DEV003";
    d.start = start;
    d.end = start + 1;
    d.needs_call_in_loop = fn;
    return d;
  };
  std::vector<FileOutcome> outcomes(4);
  // main.cpp: calls act() and step() in its loop.
  outcomes[0].cross_file.called_in_loop = {"c:@S@Agent@F@act#", "c:@S@Agent@F@step#"};
  // agent.cpp: step() calls batch(), batch() calls encode(); setup() calls init().
  outcomes[1].cross_file.calls = {{"c:@S@Agent@F@step#", "c:@S@Agent@F@batch#"},
                                  {"c:@S@Agent@F@batch#", "c:@S@Agent@F@encode#"},
                                  {"c:@S@Agent@F@setup#", "c:@S@Agent@F@init#"}};
  Diagnostic own;
  own.code = "DEV003";
  own.start = 50;
  outcomes[1].diagnostics = {own};
  outcomes[1].pending = {pending(90, "c:@S@Agent@F@encode#"), pending(10, "c:@S@Agent@F@act#"),
                         pending(70, "c:@S@Agent@F@init#"), pending(30, "c:@S@Agent@F@setup#")};
  outcomes[1].source = SourceFile("agent.cpp", std::string(100, ' '));
  // A file whose only finding does not stand loses its source (nothing to point into).
  outcomes[2].pending = {pending(5, "c:@S@Agent@F@init#")};
  outcomes[2].source = SourceFile("other.cpp", std::string(10, ' '));
  // A file that failed takes no part: its calls do not make anything per iteration.
  outcomes[3].error = "error: broken.cpp: cannot read";
  outcomes[3].cross_file.called_in_loop = {"c:@S@Agent@F@init#"};
  resolve_cross_file(outcomes);
  std::vector<uint32_t> starts;
  for (const Diagnostic& d : outcomes[1].diagnostics) starts.push_back(d.start);
  EXPECT_EQ(starts, (std::vector<uint32_t>{10, 50, 90}));  // act, own, encode (via step, batch)
  EXPECT_TRUE(outcomes[1].pending.empty());
  EXPECT_TRUE(outcomes[1].source.has_value());
  EXPECT_TRUE(outcomes[2].diagnostics.empty());
  EXPECT_TRUE(outcomes[2].pending.empty());
  EXPECT_FALSE(outcomes[2].source.has_value());
}

}  // namespace
}  // namespace gpulint
