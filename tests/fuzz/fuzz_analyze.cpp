// libFuzzer target over the Python front end, the rules and the fixer:
//   bytes -> SourceFile::from_bytes -> analyze_python (every rule) -> apply_fixes_once
//   (safe and unsafe fixes) -> analyze_python on the fixed text.
// Must never crash, hang or leak. Besides the sanitizers it checks what the output code
// relies on: every diagnostic and fix edit lies inside the text, and a fix applied to valid
// UTF-8 leaves valid UTF-8 (gpulint would otherwise write a file it refuses to read back).
//
// The analysis runs on a thread with the driver's stack size (analyzer/driver.cpp gives its
// workers 256 MiB so that 10,000-deep nesting does not overflow a recursive walk), so the
// fuzzer finds what `gpulint check` would hit, not what an 8 MiB main-thread stack would.
//
// Build and run: scripts/fuzz.sh SECONDS (clang-16, -fsanitize=fuzzer,address,undefined).
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analyzer/analysis.h"
#include "analyzer/fixer.h"
#include "analyzer/rule.h"
#include "analyzer/source.h"

using namespace gpulint;

namespace {

const FileSettings& all_rules_settings() {
  static const FileSettings settings = FileSettings::all_rules_enabled();
  return settings;
}

[[noreturn]] void fail(const char* what, const Diagnostic* d, std::size_t size) {
  std::fprintf(stderr, "fuzz_analyze: invariant broken: %s", what);
  if (d) std::fprintf(stderr, " (%s %u..%u, text %zu bytes)", d->code.c_str(), d->start, d->end, size);
  std::fprintf(stderr, "\n");
  std::abort();
}

// What the output formats and the fixer rely on: ranges inside the text; and every position
// can be converted (the text output, JSON and the LSP do this for each diagnostic).
void check_report(const SourceFile& src, const FileReport& report) {
  const std::size_t n = src.text().size();
  for (const Diagnostic& d : report.diagnostics) {
    if (d.start > d.end || d.end > n) fail("diagnostic range outside the text", &d, n);
    (void)src.codepoint_position(d.start);
    (void)src.utf16_position(d.end);
    (void)src.line_text(src.line_of(d.start));
    if (!d.fix) continue;
    for (const auto& e : d.fix->edits)
      if (e.start > e.end || e.end > n) fail("fix edit outside the text", &d, n);
  }
  if (report.syntax_error && report.syntax_error->offset > n)
    fail("syntax error offset outside the text", nullptr, n);
}

void run_one(const std::string* bytes) {
  LoadError err;
  std::optional<SourceFile> src = SourceFile::from_bytes("fuzz.py", *bytes, &err);
  if (!src) return;  // binary, invalid UTF-8, too large: refused with a message, as intended
  const FileSettings& settings = all_rules_settings();
  FileReport report = analyze_python(*src, settings);
  check_report(*src, report);

  std::optional<std::string> fixed =
      apply_fixes_once(src->text(), report.diagnostics, /*unsafe_fixes=*/true, nullptr);
  if (!fixed) return;
  if (find_invalid_utf8(*fixed)) fail("a fix produced invalid UTF-8", nullptr, fixed->size());
  SourceFile again("fuzz.py", *fixed);
  FileReport second = analyze_python(again, settings);
  check_report(again, second);
}

void* trampoline(void* arg) {
  run_one(static_cast<const std::string*>(arg));
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  static const std::size_t kStackBytes = [] {
    const char* mb = std::getenv("FUZZ_STACK_MB");
    return (mb ? std::strtoul(mb, nullptr, 10) : 256u) << 20;  // 256 MiB: as analyzer/driver.cpp
  }();
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_t id;
  if (pthread_create(&id, &attr, trampoline, const_cast<std::string*>(&bytes)) == 0) {
    pthread_join(id, nullptr);
  } else {
    run_one(&bytes);
  }
  pthread_attr_destroy(&attr);
  return 0;
}
