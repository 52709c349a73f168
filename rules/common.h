// Helpers shared by the rule files: building a Diagnostic from a fact.
#pragma once

#include <string>

#include "analyzer/facts.h"
#include "analyzer/rule.h"

namespace gpulint::rules {

inline Diagnostic make_diagnostic(const RuleInfo& info, Range range, std::string message) {
  Diagnostic d;
  d.code = std::string(info.code);
  d.message = std::move(message);
  d.start = range.start;
  d.end = range.end;
  d.severity = info.severity;
  return d;
}

inline bool absent_or_int(const Value& v, int64_t n) {
  return v.kind == Value::Kind::Absent || (v.kind == Value::Kind::Int && v.i == n);
}
inline bool absent_or_false(const Value& v) {
  return v.kind == Value::Kind::Absent || v.kind == Value::Kind::None ||
         (v.kind == Value::Kind::Bool && !v.b);
}
/// A fix may rewrite the argument only where the value is written in the call or absent.
inline bool editable(const ArgumentFact& a) {
  return a.origin == ValueOrigin::Absent || a.origin == ValueOrigin::Keyword ||
         a.origin == ValueOrigin::Positional;
}

}  // namespace gpulint::rules
