// Rule selection: Ruff's selector semantics (ALL, codes, family prefixes, digit prefixes),
// specificity, and the config → command line layering.
#include <gtest/gtest.h>

#include "analyzer/analysis.h"
#include "analyzer/rule.h"

namespace gpulint {
namespace {

using Codes = std::set<std::string>;

Codes all_codes() {
  Codes c;
  for (const Rule* r : all_rules()) c.emplace(r->info().code);
  return c;
}

Codes with_prefix(std::string_view family) {
  Codes c;
  for (const Rule* r : all_rules())
    if (selector_matches(family, r->info().code)) c.emplace(r->info().code);
  return c;
}

TEST(Selection, SelectorMatchesCodesPrefixesAndAll) {
  EXPECT_TRUE(selector_matches("ALL", "DL001"));
  EXPECT_TRUE(selector_matches("DL", "DL001"));
  EXPECT_TRUE(selector_matches("DL0", "DL001"));
  EXPECT_TRUE(selector_matches("DL00", "DL002"));
  EXPECT_TRUE(selector_matches("DL001", "DL001"));
  EXPECT_TRUE(selector_matches("DEV00", "DEV003"));
  EXPECT_FALSE(selector_matches("DL002", "DL001"));
  EXPECT_FALSE(selector_matches("DL0011", "DL001"));
  // A prefix is a whole family plus digits: "D" is neither DL nor DEV.
  EXPECT_FALSE(selector_matches("D", "DL001"));
  EXPECT_FALSE(selector_matches("DE", "DEV001"));
  EXPECT_FALSE(selector_matches("DEV", "DL001"));
  EXPECT_FALSE(selector_matches("", "DL001"));
  EXPECT_FALSE(selector_matches("dl", "DL001"));
  EXPECT_FALSE(selector_matches("DL-", "DL001"));
}

TEST(Selection, KnownSelectors) {
  EXPECT_TRUE(selector_is_known("ALL"));
  EXPECT_TRUE(selector_is_known("DL"));
  EXPECT_TRUE(selector_is_known("DL001"));
  EXPECT_TRUE(selector_is_known("DEV00"));
  EXPECT_TRUE(selector_is_known("MEM001"));
  EXPECT_FALSE(selector_is_known("DL999"));
  EXPECT_FALSE(selector_is_known("XYZ"));
  EXPECT_FALSE(selector_is_known("D"));
  EXPECT_FALSE(selector_is_known(""));
  EXPECT_FALSE(selector_is_known("E501"));
}

TEST(Selection, DefaultIsEveryRule) {
  RuleSelection s;
  EXPECT_EQ(s.enabled_codes(), all_codes());
  EXPECT_GE(all_codes().size(), 6u);
}

TEST(Selection, SelectReplacesTheDefault) {
  RuleSelection s;
  s.select = {"DL"};
  EXPECT_EQ(s.enabled_codes(), (Codes{"DL001", "DL002"}));
  s.select = {"DL001", "MEM"};
  EXPECT_EQ(s.enabled_codes(), (Codes{"DL001", "MEM001"}));
}

TEST(Selection, ExtendSelectAndIgnore) {
  RuleSelection s;
  s.select = {"DL"};
  s.extend_select = {"MEM001"};
  s.ignore = {"DL002"};
  EXPECT_EQ(s.enabled_codes(), (Codes{"DL001", "MEM001"}));

  RuleSelection only_ignore;
  only_ignore.ignore = {"DEV"};
  Codes expected = all_codes();
  for (const auto& c : with_prefix("DEV")) expected.erase(c);
  EXPECT_EQ(only_ignore.enabled_codes(), expected);
}

TEST(Selection, MoreSpecificSelectorWins) {
  // Ruff: --select DL001 --ignore DL keeps DL001 (the code is more specific than the family).
  RuleSelection s;
  s.select = {"DL001"};
  s.ignore = {"DL"};
  EXPECT_EQ(s.enabled_codes(), (Codes{"DL001"}));
  // At equal specificity ignore wins.
  s.select = {"DL"};
  s.ignore = {"DL"};
  EXPECT_TRUE(s.enabled_codes().empty());
  // ALL is the least specific.
  s.select = {"ALL"};
  s.ignore = {"DL001"};
  EXPECT_FALSE(s.enabled_codes().count("DL001"));
  EXPECT_TRUE(s.enabled_codes().count("DL002"));
}

TEST(Selection, LayersApplyConfigThenCommandLine) {
  RuleSelection config;
  config.select = {"DL", "DEV"};
  config.ignore = {"DL001"};
  RuleSelection cli;
  // --extend-select re-enables what the config ignored.
  cli.extend_select = {"DL001"};
  EXPECT_TRUE(enabled_codes({config, cli}).count("DL001"));
  // --ignore removes on top of the config's selection.
  RuleSelection cli_ignore;
  cli_ignore.ignore = {"DEV"};
  EXPECT_EQ(enabled_codes({config, cli_ignore}), (Codes{"DL002"}));
  // --select replaces the config's selection entirely.
  RuleSelection cli_select;
  cli_select.select = {"MEM"};
  EXPECT_EQ(enabled_codes({config, cli_select}), (Codes{"MEM001"}));
  // An empty CLI layer changes nothing.
  EXPECT_EQ(enabled_codes({config, RuleSelection{}}), config.enabled_codes());
}

TEST(Selection, SplitSelectorsTrimsAndDropsEmptyPieces) {
  EXPECT_EQ(split_selectors({"DL001, DL", " MEM001\t", ",,", ""}),
            (std::vector<std::string>{"DL001", "DL", "MEM001"}));
  EXPECT_TRUE(split_selectors({}).empty());
}

TEST(Selection, UnknownSelectorMessageNamesFlagAndSelector) {
  EXPECT_EQ(unknown_selector_message("--ignore", "DL999"),
            "error: --ignore: unknown rule selector `DL999` (expected ALL, a rule code such as "
            "DL001, or a prefix such as DL)\n");
  // The clause alone, for the config file's and the LSP server's messages.
  EXPECT_EQ(unknown_selector_message("DL999"),
            "unknown rule selector `DL999` (expected ALL, a rule code such as DL001, or a prefix "
            "such as DL)");
}

}  // namespace
}  // namespace gpulint
