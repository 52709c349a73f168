// Factory functions of every rule (one per rules/*.cpp file). The registry (registry.cpp)
// lists them explicitly so static linking never drops a rule.
#pragma once

#include "analyzer/rule.h"

namespace gpulint::rules {
const Rule* dl001_rule();
const Rule* dl002_rule();
const Rule* dev001_rule();
const Rule* dev002_rule();
const Rule* dev003_rule();
const Rule* mem001_rule();
}  // namespace gpulint::rules
