// Suppression comments: `# noqa`, `# noqa: CODES`, `# gpulint: noqa` (parsing and
// application), and that a `# noqa` inside a string never suppresses anything.
#include <gtest/gtest.h>

#include "analyzer/analysis.h"
#include "tests/test_util.h"

namespace gpulint {
namespace {

using Codes = std::vector<std::string>;

TEST(Noqa, BareNoqaSuppressesEverything) {
  EXPECT_EQ(parse_noqa("# noqa"), Codes{});
  EXPECT_EQ(parse_noqa("#noqa"), Codes{});
  EXPECT_EQ(parse_noqa("# NOQA"), Codes{});
  EXPECT_EQ(parse_noqa("# NoQa  "), Codes{});
  // No colon: flake8 and Ruff read `# noqa DL001` as a bare noqa.
  EXPECT_EQ(parse_noqa("# noqa DL001"), Codes{});
}

TEST(Noqa, CodesAfterTheColon) {
  EXPECT_EQ(parse_noqa("# noqa: DL001"), (Codes{"DL001"}));
  EXPECT_EQ(parse_noqa("# noqa: DL001, DL002"), (Codes{"DL001", "DL002"}));
  EXPECT_EQ(parse_noqa("#noqa:DL001"), (Codes{"DL001"}));
  EXPECT_EQ(parse_noqa("# NOQA:DL001,MEM001"), (Codes{"DL001", "MEM001"}));
  EXPECT_EQ(parse_noqa("# noqa: dl001"), (Codes{"DL001"}));
  EXPECT_EQ(parse_noqa("# noqa: DL001 DEV002"), (Codes{"DL001", "DEV002"}));
  // A reason after the codes is not a code.
  EXPECT_EQ(parse_noqa("# noqa: DL001 workers fork the CUDA context"), (Codes{"DL001"}));
  // Another comment before the directive.
  EXPECT_EQ(parse_noqa("# type: ignore  # noqa: DL002"), (Codes{"DL002"}));
}

TEST(Noqa, NotADirective) {
  EXPECT_EQ(parse_noqa("# plain comment"), std::nullopt);
  EXPECT_EQ(parse_noqa("# noqa:"), std::nullopt);       // codes missing (Ruff ignores it)
  EXPECT_EQ(parse_noqa("# noqa: , "), std::nullopt);
  EXPECT_EQ(parse_noqa("# noqafoo"), std::nullopt);
  EXPECT_EQ(parse_noqa("# this is not noqa"), std::nullopt);
  EXPECT_EQ(parse_noqa("# gpulint: noqa"), std::nullopt);  // file-wide, not a line noqa
}

// Comments of `text` found naively (the test inputs have no '#' inside strings unless the
// test says so; those tests pass the comment ranges explicitly).
std::vector<Comment> comments_of(std::string_view text) {
  std::vector<Comment> out;
  std::size_t pos = 0;
  while ((pos = text.find('#', pos)) != std::string_view::npos) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    out.push_back({static_cast<uint32_t>(pos), static_cast<uint32_t>(end)});
    pos = end;
  }
  return out;
}

Diagnostic diag(std::string code, const SourceFile& src, uint32_t line, uint32_t end_line) {
  Diagnostic d;
  d.code = std::move(code);
  d.start = src.line_start(line);
  d.end = src.line_start(end_line) + 3;
  d.message = "m";
  return d;
}

TEST(Noqa, AppliesOnTheDiagnosticsFirstLine) {
  SourceFile src("train.py",
                 "from torch.utils.data import DataLoader\n"                       // 0
                 "a = DataLoader(ds, batch_size=64)  # noqa\n"                     // 1
                 "b = DataLoader(ds, batch_size=64)  # noqa: DL002\n"              // 2
                 "c = DataLoader(ds, batch_size=64)\n"                             // 3
                 "d = DataLoader(ds,\n"                                            // 4
                 "               batch_size=64)  # noqa: DL001\n");                // 5
  std::vector<Diagnostic> ds = {diag("DL001", src, 1, 1), diag("DL002", src, 1, 1),
                                diag("DL001", src, 2, 2), diag("DL002", src, 2, 2),
                                diag("DL001", src, 3, 3), diag("DL001", src, 4, 5)};
  uint32_t removed = apply_python_suppressions(src, comments_of(src.text()), ds);
  EXPECT_EQ(removed, 3u);
  ASSERT_EQ(ds.size(), 3u);
  EXPECT_EQ(src.line_of(ds[0].start), 2u);
  EXPECT_EQ(ds[0].code, "DL001");
  EXPECT_EQ(src.line_of(ds[1].start), 3u);
  // The noqa is on the last line of the call, not its first: not suppressed.
  EXPECT_EQ(src.line_of(ds[2].start), 4u);
}

TEST(Noqa, FileWideExemption) {
  SourceFile src("train.py",
                 "# gpulint: noqa\n"
                 "loader = DataLoader(ds, batch_size=64)\n");
  std::vector<Diagnostic> ds = {diag("DL001", src, 1, 1), diag("DL002", src, 1, 1)};
  EXPECT_EQ(apply_python_suppressions(src, comments_of(src.text()), ds), 2u);
  EXPECT_TRUE(ds.empty());

  SourceFile only("train.py",
                  "import torch\n"
                  "loader = DataLoader(ds, batch_size=64)\n"
                  "#gpulint:noqa:DL002\n");
  std::vector<Diagnostic> ds2 = {diag("DL001", only, 1, 1), diag("DL002", only, 1, 1)};
  EXPECT_EQ(apply_python_suppressions(only, comments_of(only.text()), ds2), 1u);
  ASSERT_EQ(ds2.size(), 1u);
  EXPECT_EQ(ds2[0].code, "DL001");
}

TEST(Noqa, OnlyCommentRangesCount) {
  // The "# noqa" is inside a string: the parser reports no comment there.
  SourceFile src("train.py", "loader = DataLoader(ds, batch_size=64); s = \"# noqa\"\n");
  std::vector<Diagnostic> ds = {diag("DL001", src, 0, 0)};
  EXPECT_EQ(apply_python_suppressions(src, {}, ds), 0u);
  EXPECT_EQ(ds.size(), 1u);
  // Out-of-range comment ranges are ignored, not a crash.
  EXPECT_EQ(apply_python_suppressions(src, {{500, 600}, {10, 5}}, ds), 0u);
}

// End to end through the real front end and rules.
TEST(Noqa, ThroughAnalyzePython) {
  FileSettings settings = FileSettings::all_rules_enabled();
  std::string base = testing::kTrainScript;
  SourceFile plain("train.py", base);
  FileReport before = analyze_python(plain, settings);
  ASSERT_FALSE(before.diagnostics.empty()) << "the training script should have findings";

  std::string line = "loader = DataLoader(train_set, batch_size=64, shuffle=True)";
  std::string with_noqa = base;
  with_noqa.replace(with_noqa.find(line), line.size(), line + "  # noqa");
  FileReport after = analyze_python(SourceFile("train.py", with_noqa), settings);
  for (const auto& d : after.diagnostics)
    EXPECT_NE(SourceFile("train.py", with_noqa).line_of(d.start), 4u) << d.code;
  EXPECT_GT(after.suppressed, 0u);

  std::string in_string = base;
  in_string.replace(in_string.find(line), line.size(), line + "; s = \"# noqa\"");
  FileReport str = analyze_python(SourceFile("train.py", in_string), settings);
  EXPECT_EQ(str.diagnostics.size(), before.diagnostics.size());
  EXPECT_EQ(str.suppressed, 0u);

  FileReport file_wide =
      analyze_python(SourceFile("train.py", "# gpulint: noqa\n" + base), settings);
  EXPECT_TRUE(file_wide.diagnostics.empty());
}

}  // namespace
}  // namespace gpulint
