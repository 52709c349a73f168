// Rule selection with Ruff's semantics: `select` / `extend-select` / `ignore` made of "ALL",
// rule codes ("DL001") and code prefixes ("DL", "DEV00"). A prefix is a whole family (the
// letters of a code) followed by any number of the code's leading digits: "DEV0" matches
// DEV001, "DE" and "D" match nothing.
#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "analyzer/analysis.h"

namespace gpulint {

FileSettings FileSettings::all_rules_enabled() {
  FileSettings s;
  for (const Rule* r : all_rules()) s.enabled.emplace(r->info().code);
  return s;
}
namespace {

// Splits "DEV00" into ("DEV", "00"); false when the selector is not letters then digits.
bool split_selector(std::string_view s, std::string_view& family, std::string_view& digits) {
  std::size_t i = 0;
  while (i < s.size() && std::isupper(static_cast<unsigned char>(s[i]))) ++i;
  std::size_t j = i;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (i == 0 || j != s.size()) return false;
  family = s.substr(0, i);
  digits = s.substr(i);
  return true;
}

// 0 for "ALL", 1 for a family, 1 + digits for longer prefixes and codes.
int specificity(std::string_view selector) {
  if (selector == "ALL") return 0;
  std::string_view family, digits;
  if (!split_selector(selector, family, digits)) return 1;
  return 1 + static_cast<int>(digits.size());
}

}  // namespace

bool selector_matches(std::string_view selector, std::string_view code) {
  if (selector.empty()) return false;
  if (selector == "ALL") return true;
  std::string_view sf, sd, cf, cd;
  if (!split_selector(selector, sf, sd) || !split_selector(code, cf, cd)) return false;
  return sf == cf && cd.substr(0, sd.size()) == sd;
}

bool selector_is_known(std::string_view selector) {
  if (selector == "ALL") return true;
  for (const Rule* r : all_rules())
    if (selector_matches(selector, r->info().code)) return true;
  return false;
}

std::vector<std::string> split_selectors(const std::vector<std::string>& raw) {
  std::vector<std::string> out;
  for (const std::string& value : raw) {
    std::size_t pos = 0;
    while (pos <= value.size()) {
      std::size_t comma = value.find(',', pos);
      std::string_view piece = std::string_view(value).substr(
          pos, comma == std::string::npos ? std::string::npos : comma - pos);
      std::size_t b = piece.find_first_not_of(" \t"), e = piece.find_last_not_of(" \t");
      if (b != std::string_view::npos) out.emplace_back(piece.substr(b, e - b + 1));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  return out;
}

std::string unknown_selector_message(std::string_view selector) {
  return fmt::format(
      "unknown rule selector `{}` (expected ALL, a rule code such as DL001, or a prefix such as "
      "DL)",
      selector);
}

std::string unknown_selector_message(std::string_view flag, std::string_view selector) {
  return fmt::format("error: {}: {}\n", flag, unknown_selector_message(selector));
}

std::set<std::string> enabled_codes(const std::vector<RuleSelection>& layers) {
  std::vector<std::string> all;
  for (const Rule* r : all_rules()) all.emplace_back(r->info().code);

  std::set<std::string> current;
  bool first = true;
  for (const RuleSelection& layer : layers) {
    std::vector<std::string> selects = layer.select;
    bool restart = first || !selects.empty();
    if (first && selects.empty()) selects.push_back("ALL");
    first = false;

    std::vector<int> specs;
    for (const auto& s : selects) specs.push_back(specificity(s));
    for (const auto& s : layer.extend_select) specs.push_back(specificity(s));
    for (const auto& s : layer.ignore) specs.push_back(specificity(s));
    std::sort(specs.begin(), specs.end());
    specs.erase(std::unique(specs.begin(), specs.end()), specs.end());

    std::map<std::string, bool> updates;
    for (int spec : specs) {
      auto apply = [&](const std::vector<std::string>& selectors, bool enable) {
        for (const auto& sel : selectors) {
          if (specificity(sel) != spec) continue;
          for (const auto& code : all)
            if (selector_matches(sel, code)) updates[code] = enable;
        }
      };
      apply(selects, true);
      apply(layer.extend_select, true);
      apply(layer.ignore, false);
    }
    if (restart) current.clear();
    for (const auto& [code, enable] : updates) {
      if (enable)
        current.insert(code);
      else
        current.erase(code);
    }
  }
  if (layers.empty()) current.insert(all.begin(), all.end());
  return current;
}

std::set<std::string> RuleSelection::enabled_codes() const {
  return gpulint::enabled_codes(std::vector<RuleSelection>{*this});
}

}  // namespace gpulint
