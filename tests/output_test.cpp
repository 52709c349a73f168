// Output formats: full (gutter and carets), concise, json (Ruff's schema, code-point
// columns), statistics, the summary lines, and the rule documentation.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzer/output.h"
#include "analyzer/rule.h"
#include "tests/test_util.h"

namespace gpulint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// "é" is two bytes, one code point: columns after it count code points (DataLoader starts
// at byte column 19, code-point column 18).
const char* kSource =
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "n\xC3\xA9 = 1; loader = DataLoader(ds, batch_size=64)\n";

struct Fixture {
  SourceFile src{"train.py", kSource};
  std::vector<Diagnostic> diags;
  Fixture() {
    auto [dl001, dl002] = testing::dataloader_call_diagnostics(src.text());
    Diagnostic dev001;
    dev001.code = "DEV001";
    dev001.message = "model never moved to the GPU";
    dev001.start = 0;
    dev001.end = 12;
    diags = {dl001, dl002, dev001};
  }
  std::vector<FileDiagnostics> files() const { return {FileDiagnostics{"train.py", &src, &diags}}; }
};

std::string render(const Fixture& f, OutputOptions o) {
  std::ostringstream out;
  write_diagnostics(out, f.files(), o);
  return out.str();
}

TEST(Output, Concise) {
  Fixture f;
  OutputOptions o;
  o.format = OutputFormat::Concise;
  o.cwd = "/nonexistent";
  std::string s = render(f, o);
  EXPECT_EQ(s,
            "train.py:3:18: DL001 `DataLoader` has no worker processes\n"
            "train.py:3:18: DL002 [*] `DataLoader` batches are copied from pageable memory\n"
            "train.py:1:1: DEV001 model never moved to the GPU\n");
  // With --unsafe-fixes the unsafe fix is available too.
  o.unsafe_fixes = true;
  EXPECT_THAT(render(f, o), HasSubstr("DL001 [*] `DataLoader`"));
}

TEST(Output, FullHasGutterAndCarets) {
  Fixture f;
  OutputOptions o;
  o.cwd = "/nonexistent";
  std::string s = render(f, o);
  EXPECT_THAT(s, HasSubstr("train.py:3:18: DL002 [*] `DataLoader` batches are copied from pageable memory\n"
                           "  |\n"
                           "3 | n\xC3\xA9 = 1; loader = DataLoader(ds, batch_size=64)\n"
                           "  | " + std::string(17, ' ') + "^^^^^^^^^^ DL002\n"
                           "  |\n\n"));
  EXPECT_THAT(s, Not(HasSubstr("help:")));
  o.show_fixes = true;
  EXPECT_THAT(render(f, o), HasSubstr("  |\n  = help: Add `pin_memory=True`\n"));
}

TEST(Output, FullWithEmptyRangeAndTabs) {
  SourceFile src("t.py", "if x:\n\tloader = DataLoader(ds)\n");
  Diagnostic d;
  d.code = "DL001";
  d.message = "m";
  d.start = d.end = static_cast<uint32_t>(src.text().find("DataLoader"));
  std::vector<Diagnostic> ds = {d};
  std::ostringstream out;
  OutputOptions o;
  write_diagnostics(out, {FileDiagnostics{"t.py", &src, &ds}}, o);
  EXPECT_THAT(out.str(), HasSubstr("2 |     loader = DataLoader(ds)\n  |              ^ DL001\n"));
}

TEST(Output, JsonMatchesRuffSchema) {
  Fixture f;
  OutputOptions o;
  o.format = OutputFormat::Json;
  o.cwd = "/work";
  auto j = nlohmann::json::parse(render(f, o));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 3u);
  const auto& first = j[0];
  std::vector<std::string> keys;
  for (auto it = first.begin(); it != first.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"cell", "code", "end_location", "filename", "fix",
                                            "location", "message", "noqa_row", "url"}));
  EXPECT_TRUE(first["cell"].is_null());
  EXPECT_EQ(first["code"], "DL001");
  EXPECT_EQ(first["filename"], "/work/train.py");
  EXPECT_EQ(first["location"], (nlohmann::json{{"row", 3}, {"column", 18}}));
  EXPECT_EQ(first["end_location"], (nlohmann::json{{"row", 3}, {"column", 28}}));
  EXPECT_EQ(first["noqa_row"], 3);
  EXPECT_EQ(first["message"], "`DataLoader` has no worker processes");
  EXPECT_EQ(first["url"], "https://gpulint.dev/rules/" + rule_name("DL001"));
  const auto& fix = first["fix"];
  EXPECT_EQ(fix["applicability"], "unsafe");  // reported even without --unsafe-fixes (Ruff)
  EXPECT_EQ(fix["message"], "Set `num_workers=4`");
  ASSERT_EQ(fix["edits"].size(), 1u);
  EXPECT_EQ(fix["edits"][0]["content"], ", num_workers=4");
  EXPECT_EQ(fix["edits"][0]["location"], (nlohmann::json{{"row", 3}, {"column", 46}}));
  EXPECT_EQ(fix["edits"][0]["end_location"], (nlohmann::json{{"row", 3}, {"column", 46}}));
  EXPECT_EQ(j[1]["fix"]["applicability"], "safe");
  EXPECT_TRUE(j[2]["fix"].is_null());

  std::ostringstream empty;
  write_diagnostics(empty, {}, o);
  EXPECT_EQ(nlohmann::json::parse(empty.str()), nlohmann::json::array());
}

TEST(SourceFileTest, CodepointOffsetInvertsCodepointPosition) {
  // 4-byte, 2-byte and ASCII characters, a CRLF line and a final newline.
  SourceFile src("/t.py", "a\xF0\x9D\x94\xB5\xC3\xA9" "b\r\nxy\n");
  for (uint32_t off : {0u, 1u, 5u, 7u, 8u, 10u, 11u, 12u, 13u}) {
    std::optional<uint32_t> back = src.offset_from_codepoint(src.codepoint_position(off));
    ASSERT_TRUE(back) << off;
    EXPECT_EQ(*back, off);
  }
  EXPECT_EQ(src.offset_from_codepoint({0, 4}), 8u);   // the line's end, before "\r\n"
  EXPECT_FALSE(src.offset_from_codepoint({0, 5}));    // past the line's end
  EXPECT_EQ(src.offset_from_codepoint({2, 0}), 13u);  // the empty line after the final newline
  EXPECT_FALSE(src.offset_from_codepoint({2, 1}));
  EXPECT_FALSE(src.offset_from_codepoint({3, 0}));    // no such line
}

TEST(Output, DiagnosticEqualityComparesEveryField) {
  Diagnostic a;
  a.code = "DL001";
  a.message = "m";
  a.start = 1;
  a.end = 5;
  a.fix = Fix{Applicability::Unsafe, "Set `num_workers=4`", {{5, 5, ", num_workers=4"}}};
  Diagnostic b = a;
  EXPECT_TRUE(a == b);
  b.fix->edits[0].content = ", num_workers=2";
  EXPECT_FALSE(a == b);  // the fix's edit text
  b = a;
  b.end = 6;
  EXPECT_FALSE(a == b);
  b = a;
  b.severity = Severity::Error;
  EXPECT_FALSE(a == b);
  b = a;
  b.fix.reset();
  EXPECT_FALSE(a == b);
}

TEST(Output, ApplicabilityNamesRoundTrip) {
  // One table: what the json output writes is what --diagnostics readers parse back.
  for (Applicability a : {Applicability::Safe, Applicability::Unsafe, Applicability::DisplayOnly})
    EXPECT_EQ(parse_applicability(to_string(a)), a) << to_string(a);
  EXPECT_EQ(to_string(Applicability::DisplayOnly), "display-only");
  EXPECT_FALSE(parse_applicability("Safe"));
  EXPECT_FALSE(parse_applicability("sometimes"));
  EXPECT_FALSE(parse_applicability(""));
}

TEST(Output, Statistics) {
  Fixture f;
  f.diags.push_back(f.diags[1]);
  OutputOptions o;
  std::ostringstream out;
  write_statistics(out, f.files(), o);
  EXPECT_EQ(out.str(), "2\tDL002 \t[*] " + rule_name("DL002") + "\n" +
                           "1\tDEV001\t[ ] " + rule_name("DEV001") + "\n" +
                           "1\tDL001 \t[ ] " + rule_name("DL001") + "\n");
  o.format = OutputFormat::Json;
  std::ostringstream js;
  write_statistics(js, f.files(), o);
  auto j = nlohmann::json::parse(js.str());
  EXPECT_EQ(j[0]["code"], "DL002");
  EXPECT_EQ(j[0]["count"], 2);
  EXPECT_EQ(j[0]["fixable"], true);
}

std::string summary(SummaryCounts c, bool quiet = false) {
  std::ostringstream out;
  OutputOptions o;
  o.quiet = quiet;
  write_summary(out, c, o);
  return out.str();
}

TEST(Output, SummaryLines) {
  EXPECT_EQ(summary({3, 0, 1, 1}),
            "Found 3 errors.\n[*] 1 fixable with the `--fix` option (1 hidden fix can be "
            "enabled with the `--unsafe-fixes` option).\n");
  EXPECT_EQ(summary({1, 0, 1, 0}), "Found 1 error.\n[*] 1 fixable with the `--fix` option.\n");
  EXPECT_EQ(summary({2, 0, 0, 2}),
            "Found 2 errors.\nNo fixes available (2 hidden fixes can be enabled with the "
            "`--unsafe-fixes` option).\n");
  EXPECT_EQ(summary({1, 2, 0, 0}), "Found 3 errors (2 fixed, 1 remaining).\n");
  EXPECT_EQ(summary({0, 0, 0, 0}), "All checks passed!\n");
  EXPECT_EQ(summary({0, 0, 0, 0}, true), "");
  EXPECT_EQ(summary({5, 0, 5, 0}, true), "");

  std::ostringstream diff;
  write_diff_summary(diff, {0, 2, 0, 1}, OutputOptions{});
  EXPECT_EQ(diff.str(), "Would fix 2 errors (1 additional fix available with `--unsafe-fixes`).\n");
}

TEST(Output, FixedList) {
  std::ostringstream out;
  write_fixed_list(out, {{"train.py", {{"DL002", 2}}}});
  EXPECT_EQ(out.str(), "Fixed 2 errors:\n- train.py:\n    2 × DL002 (" + rule_name("DL002") + ")\n\n");
}

TEST(Output, Paths) {
  EXPECT_EQ(display_path("/work/repo/train.py", "/work/repo"), "train.py");
  EXPECT_EQ(display_path("src/../train.py", "/work/repo"), "train.py");
  EXPECT_EQ(display_path("/elsewhere/train.py", "/work/repo"), "/elsewhere/train.py");
  EXPECT_EQ(display_path("../x/train.py", "/work/repo"), "/work/x/train.py");
  EXPECT_EQ(display_path("-", "/work/repo"), "-");
  EXPECT_EQ(absolute_path("train.py", "/work/repo"), "/work/repo/train.py");
}

TEST(Output, RuleDocs) {
  const auto& rules = all_rules();
  ASSERT_FALSE(rules.empty());
  std::string md = rules_markdown();
  EXPECT_EQ(md.rfind("# gpulint rules\n", 0), 0u);
  EXPECT_THAT(md, HasSubstr("| Code | Name | Fix | Summary |"));
  for (const Rule* r : rules) {
    const RuleInfo& i = r->info();
    EXPECT_THAT(md, HasSubstr(fmt::format("\n## {}: {}\n", i.code, i.name)));
    std::string page = rule_page(*r);
    EXPECT_EQ(page.rfind(fmt::format("# {} ({})\n", i.name, i.code), 0), 0u);
    EXPECT_THAT(page, HasSubstr(std::string(i.summary)));
  }
  std::string table = rules_table();
  EXPECT_EQ(table.rfind("CODE", 0), 0u);
  for (const Rule* r : rules) EXPECT_THAT(table, HasSubstr(std::string(r->info().code)));
}

}  // namespace
}  // namespace gpulint
