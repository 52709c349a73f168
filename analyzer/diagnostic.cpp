#include "analyzer/diagnostic.h"

#include "analyzer/facts.h"

namespace gpulint {

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "warning";
}

std::string_view to_string(Applicability a) {
  switch (a) {
    case Applicability::Safe: return "safe";
    case Applicability::Unsafe: return "unsafe";
    case Applicability::DisplayOnly: return "display-only";
  }
  return "safe";
}

std::optional<Applicability> parse_applicability(std::string_view name) {
  for (Applicability a : {Applicability::Safe, Applicability::Unsafe, Applicability::DisplayOnly})
    if (to_string(a) == name) return a;
  return std::nullopt;
}

bool Value::operator==(const Value& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::Bool: return b == o.b;
    case Kind::Int: return i == o.i;
    case Kind::Float: return f == o.f;
    case Kind::Str: return s == o.s;
    default: return true;
  }
}

bool ArgumentFact::unknown() const {
  if (alternatives.empty()) return true;
  for (const auto& v : alternatives)
    if (v.kind == Value::Kind::Unknown) return true;
  return false;
}

bool ArgumentFact::all_of(const std::function<bool(const Value&)>& pred) const {
  if (unknown()) return false;
  for (const auto& v : alternatives)
    if (!pred(v)) return false;
  return true;
}

}  // namespace gpulint
