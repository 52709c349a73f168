#include "rules/registry.h"

#include <algorithm>

namespace gpulint {

const std::vector<const Rule*>& all_rules() {
  static const std::vector<const Rule*> rules = [] {
    std::vector<const Rule*> r = {rules::dl001_rule(),  rules::dl002_rule(),  rules::dev001_rule(),
                                  rules::dev002_rule(), rules::dev003_rule(), rules::mem001_rule()};
    std::sort(r.begin(), r.end(), [](const Rule* a, const Rule* b) { return a->info().code < b->info().code; });
    return r;
  }();
  return rules;
}

const Rule* find_rule(std::string_view code) {
  for (const Rule* r : all_rules())
    if (r->info().code == code) return r;
  return nullptr;
}

}  // namespace gpulint
