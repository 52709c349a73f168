// The driver: a fixed pool of threads pulling file indexes from an atomic counter.
#include "analyzer/driver.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <memory>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "analyzer/fixer.h"

namespace gpulint {

std::string syntax_warning(const std::string& display, const SourceFile& source,
                           const SyntaxErrorNote& note) {
  LineCol lc = source.codepoint_position(note.offset);
  return fmt::format("warning: {}:{}:{}: {}; analysed the code that parses", display,
                     lc.line + 1, lc.column + 1,
                     note.message.empty() ? std::string("syntax error") : note.message);
}

namespace {

void run_one(const FileTask& task, const DriverOptions& opt, FileOutcome& out) {
  out.path = task.path;
  out.display = task.display.empty() ? task.path : task.display;
  LoadError err;
  std::optional<SourceFile> src = task.content
                                      ? SourceFile::from_bytes(task.path, *task.content, &err)
                                      : SourceFile::load(task.path, &err);
  if (!src) {
    out.error = fmt::format("error: {}: {}", out.display, err.message);
    return;
  }
  // A notebook: its code cells become one module (analyzer/notebook.h); fixes are written
  // back into the cells.
  std::shared_ptr<const Notebook> nb;
  if (is_notebook_path(task.path)) {
    std::optional<Notebook> parsed = Notebook::parse(src->text(), &err);
    if (!parsed) {
      out.error = fmt::format("error: {}: {}", out.display, err.message);
      return;
    }
    if (!parsed->not_python().empty()) {
      out.warnings.push_back(fmt::format("warning: {}: a {} notebook, not Python; skipped",
                                         out.display, parsed->not_python()));
      return;
    }
    nb = std::make_shared<const Notebook>(std::move(*parsed));
    out.notebook = nb;
    src = SourceFile(task.path, nb->module_text());
  }
  auto analyze = [&](const SourceFile& s) {
    return opt.analyze ? opt.analyze(s, task.settings) : analyze_python(s, task.settings);
  };
  FileReport report = analyze(*src);
  if (report.error) {
    out.error = fmt::format("error: {}: {}", out.display, *report.error);
    return;
  }
  out.syntax_error = report.syntax_error;
  if (report.syntax_error) {
    if (nb) {
      CellPosition p = nb->cell_position(*src, report.syntax_error->offset);
      out.warnings.push_back(fmt::format(
          "warning: {}:cell {}:{}:{}: syntax error; analysed the code that parses", out.display,
          p.cell, p.line + 1, p.column + 1));
    } else {
      out.warnings.push_back(syntax_warning(out.display, *src, *report.syntax_error));
    }
  }
  if (report.not_analysed) out.warnings.push_back(fmt::format("warning: {}: {}", out.display, *report.not_analysed));
  for (const SuppressionError& e : report.suppression_errors) {
    LineCol lc = src->codepoint_position(e.offset);
    out.warnings.push_back(fmt::format("warning: {}:{}:{}: {} [clang-tidy-nolint]", out.display, lc.line + 1,
                                       lc.column + 1, e.message));
  }

  if (opt.fix_mode != FixMode::None) {
    FixResult fr = fix_source(*src, report, opt.unsafe_fixes, analyze);
    if (fr.error) {
      out.error = fmt::format("error: {}: {}", out.display, *fr.error);
    } else if (fr.changed) {
      out.changed = true;
      out.fixed = std::move(fr.fixed);
      if (nb) {
        std::string nerr;
        std::optional<std::string> bytes = nb->write_back(fr.text, &nerr);
        if (!bytes) {
          out.error = fmt::format("error: {}: {}", out.display, nerr);
          out.changed = false;
          out.fixed.clear();
          out.diagnostics = std::move(report.diagnostics);
          out.source = std::move(src);
          return;
        }
        out.fixed_bytes = std::move(*bytes);
      } else {
        out.fixed_bytes = src->bytes_for_writing(fr.text);
      }
      if (opt.fix_mode == FixMode::Diff) {
        out.diff = nb ? unified_diff(nb->serialize(), out.fixed_bytes, out.display, out.display)
                      : unified_diff(src->text(), fr.text, out.display, out.display);
      } else if (!task.content) {
        std::string werr;
        if (!write_file_atomically(task.path, out.fixed_bytes, &werr)) {
          out.error = fmt::format("error: {}: cannot write the fixed file: {}", out.display, werr);
          out.changed = false;
          out.fixed.clear();
          out.diagnostics = std::move(report.diagnostics);
          out.source = std::move(src);
          return;
        }
      }
      report = std::move(fr.report);
      // The source the remaining diagnostics point into (BOM handling as on disk).
      src = nb ? SourceFile(task.path, fr.text) : SourceFile(task.path, out.fixed_bytes);
    }
  }
  out.diagnostics = std::move(report.diagnostics);
  out.pending = std::move(report.pending);
  out.cross_file = std::move(report.cross_file);
  if (!out.diagnostics.empty() || !out.pending.empty() || out.changed) out.source = std::move(src);
}

}  // namespace

std::vector<FileOutcome> run_tasks(const std::vector<FileTask>& tasks, const DriverOptions& options) {
  std::vector<FileOutcome> outcomes(tasks.size());
  // Each worker writes only its own slot: no lock needed.
  for_each_outcome(tasks, options,
                   [&](std::size_t i, FileOutcome&& o) { outcomes[i] = std::move(o); });
  resolve_cross_file(outcomes);
  return outcomes;
}

void resolve_cross_file(std::vector<FileOutcome>& outcomes) {
  // The functions that run once per loop iteration: those called in a loop, then (breadth
  // first) every function such a function calls.
  std::unordered_map<std::string_view, std::vector<std::string_view>> callees;
  std::unordered_set<std::string_view> per_iteration;
  std::deque<std::string_view> work;
  for (const FileOutcome& o : outcomes) {
    if (o.error) continue;
    for (const auto& [caller, callee] : o.cross_file.calls) callees[caller].push_back(callee);
    for (const std::string& f : o.cross_file.called_in_loop)
      if (per_iteration.insert(f).second) work.push_back(f);
  }
  while (!work.empty()) {
    std::string_view f = work.front();
    work.pop_front();
    if (auto it = callees.find(f); it != callees.end())
      for (std::string_view c : it->second)
        if (per_iteration.insert(c).second) work.push_back(c);
  }
  for (FileOutcome& o : outcomes) {
    if (o.pending.empty()) continue;
    bool added = false;
    if (!o.error) {
      for (Diagnostic& d : o.pending) {
        if (!per_iteration.count(d.needs_call_in_loop)) continue;
        o.diagnostics.push_back(std::move(d));
        added = true;
      }
    }
    o.pending.clear();
    if (added)
      std::stable_sort(o.diagnostics.begin(), o.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
        if (a.start != b.start) return a.start < b.start;
        return a.code < b.code;
      });
    else if (o.diagnostics.empty() && !o.changed)
      o.source.reset();
  }
}

void for_each_outcome(const std::vector<FileTask>& tasks, const DriverOptions& options,
                      const std::function<void(std::size_t, FileOutcome&&)>& on_outcome) {
  unsigned threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(tasks.size(), 1)));
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < tasks.size(); i = next++) {
      FileOutcome o;
      try {
        run_one(tasks[i], options, o);
      } catch (const std::exception& e) {
        o = FileOutcome{};
        o.path = tasks[i].path;
        o.display = tasks[i].display.empty() ? tasks[i].path : tasks[i].display;
        o.error = fmt::format("error: {}: internal error: {}", o.display, e.what());
      }
      on_outcome(i, std::move(o));
    }
  };
  // Workers get large stacks: deeply nested code (10,000 brackets) must not overflow a
  // recursive walk in the front end. The memory is only reserved, not touched.
  constexpr std::size_t kStackBytes = 256u << 20;
  std::vector<pthread_t> pool;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<std::function<void()>*>(arg))();
    return nullptr;
  };
  std::function<void()> body = worker;
  for (unsigned t = 0; t < threads; ++t) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kStackBytes);
    pthread_t id;
    if (pthread_create(&id, &attr, trampoline, &body) == 0) pool.push_back(id);
    pthread_attr_destroy(&attr);
  }
  if (pool.empty()) worker();  // could not start threads: do the work here
  for (pthread_t id : pool) pthread_join(id, nullptr);
}

}  // namespace gpulint
