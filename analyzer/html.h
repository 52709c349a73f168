// Escaping text for HTML, shared by the reports that write HTML pages (runtime_check/report.cpp
// for `confirm --html`, analyzer/audit_report.cpp for `audit --html`).
#pragma once

#include <string>
#include <string_view>

namespace gpulint {

/// `s` with &, <, >, " and ' replaced by their character references, so it can stand in HTML
/// text and in single- or double-quoted attribute values. Bytes are otherwise copied as they
/// are (UTF-8 stays UTF-8).
inline std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace gpulint
