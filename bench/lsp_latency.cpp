// LSP latency: the time from writing a `textDocument/didChange` to `gpulint server`'s stdin to
// reading the `textDocument/publishDiagnostics` for that document version from its stdout, over
// pipes, exactly as an editor sees it (framing, JSON, incremental re-parse, the full analysis,
// the whole diagnostic list serialised).
//
//   gpulint_lsp_latency GPULINT [--lines 5000] [--edits 1000] [--seed 1]
//                       [--json FILE] [--md FILE] [--save-source FILE] [--in-process-only]
//
// The document is a generated training script of --lines lines (models, datasets, loaders,
// training and evaluation loops, argparse, helpers: what the rules look at, repeated with
// different names), which produces diagnostics of every rule. The edits are what typing looks
// like, spread over random lines of the file: a character typed into a call's arguments and
// deleted again, a new statement line inserted and removed, a comment typed at a line's end;
// every edit is a ranged (incremental) change. The first 20 edits are a warm-up and are not
// counted. Reports p50, p90, p99, max and mean in milliseconds.
//
// Then, in this process (the same library the server links), the same edit sequence is replayed
// on a Document to split one re-lint into its parts: the incremental re-parse (ts_tree_edit +
// parse with the old tree; also per kind of edit), a from-scratch parse for comparison, and
// analyze_python_tree (semantic model, facts, rules, suppressions), with the semantic model and
// build_facts also timed on their own. --in-process-only skips the server and measures only this.
// After every edit the server's re-lint (RelintCache, which reuses the last analysis for a
// comment-only edit) must give exactly the report of analyze_python_tree on the same text, every
// diagnostic's range, code, message and fix included; the bench stops with the first difference.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iterator>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "analyzer/lsp/document.h"
#include "analyzer/lsp/relint.h"
#include "analyzer/python/facts_builder.h"
#include "analyzer/python/semantic_model.h"
#include "bench/lsp_document.h"

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// The first difference between two reports in what reaches the user (every diagnostic's code,
// message, range, severity, confidence and fix; the suppression count; the syntax-error
// note); "" when they are the same.
std::string report_difference(const gpulint::FileReport& got, const gpulint::FileReport& want) {
  auto where = [](const gpulint::Diagnostic& d) {
    return d.code + " [" + std::to_string(d.start) + "," + std::to_string(d.end) + ") " + d.message;
  };
  if (got.suppressed != want.suppressed)
    return "suppressed " + std::to_string(got.suppressed) + " vs " + std::to_string(want.suppressed);
  if (got.syntax_error.has_value() != want.syntax_error.has_value() ||
      (got.syntax_error && (got.syntax_error->offset != want.syntax_error->offset ||
                            got.syntax_error->error_count != want.syntax_error->error_count)))
    return "syntax-error notes differ";
  std::size_t n = std::min(got.diagnostics.size(), want.diagnostics.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!(got.diagnostics[i] == want.diagnostics[i]))
      return "diagnostic " + std::to_string(i) + ": " + where(got.diagnostics[i]) + " vs " +
             where(want.diagnostics[i]) +
             (got.diagnostics[i].fix == want.diagnostics[i].fix ? "" : " (fixes differ)");
  if (got.diagnostics.size() != want.diagnostics.size())
    return std::to_string(got.diagnostics.size()) + " diagnostics vs " +
           std::to_string(want.diagnostics.size());
  return "";
}

std::string fmt_edit_mismatch(int edit, bool reused, const std::string& diff) {
  return "edit " + std::to_string(edit) + ": RelintCache (" +
         (reused ? "reused the last analysis" : "analysed") +
         ") and a from-scratch analyze_python_tree disagree: " + diff;
}

[[noreturn]] void die(const std::string& msg) {
  std::cerr << "gpulint_lsp_latency: " << msg << "\n";
  std::exit(2);
}

std::string frame(const json& j) {
  std::string body = j.dump();
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class Child {
 public:
  explicit Child(const std::string& exe) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) die("pipe failed");
    pid_ = fork();
    if (pid_ < 0) die("fork failed");
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execl(exe.c_str(), exe.c_str(), "server", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  void send(const json& j) {
    std::string b = frame(j);
    std::size_t off = 0;
    while (off < b.size()) {
      ssize_t n = write(to_, b.data() + off, b.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        die("write to the server failed");
      }
      off += static_cast<std::size_t>(n);
    }
  }
  // The next message (blocks; dies after 30 s or at the end of output).
  json read() {
    for (;;) {
      std::size_t hdr = buf_.find("\r\n\r\n");
      if (hdr != std::string::npos) {
        std::size_t len = std::stoul(buf_.substr(buf_.find(':') + 1, hdr));
        if (buf_.size() >= hdr + 4 + len) {
          json j = json::parse(buf_.substr(hdr + 4, len));
          buf_.erase(0, hdr + 4 + len);
          return j;
        }
      }
      pollfd p{from_, POLLIN, 0};
      if (poll(&p, 1, 30000) <= 0) die("no answer from the server within 30 s");
      char tmp[1 << 16];
      ssize_t n = ::read(from_, tmp, sizeof tmp);
      if (n <= 0) die("the server closed its output");
      buf_.append(tmp, static_cast<std::size_t>(n));
    }
  }
  int finish() {
    close(to_);
    int status = 0;
    waitpid(pid_, &status, 0);
    close(from_);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 public:
  /// CPU time (user + system) the server process has used so far, in ms (/proc/PID/stat).
  double cpu_ms() const {
    std::ifstream f("/proc/" + std::to_string(pid_) + "/stat");
    std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto close = all.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(all.substr(close + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::stod(field);
      if (i == 15) stime = std::stod(field);
    }
    return (utime + stime) * 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buf_;
};

// UTF-16 column = byte column here: the generated source is ASCII.
json position(int line, int ch) { return {{"line", line}, {"character", ch}}; }

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  double idx = p / 100.0 * static_cast<double>(v.size() - 1);
  std::size_t lo = static_cast<std::size_t>(idx);
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: gpulint_lsp_latency GPULINT [--lines N] [--edits N] [--seed N] [--json FILE] [--md FILE] [--in-process-only]");
  std::string exe = argv[1];
  int lines = 5000, edits = 1000, warmup = 20;
  unsigned seed = 1;
  std::string json_path, md_path, save_source;
  bool in_process_only = false;  // skip the server over pipes: only the in-process split
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--lines") lines = std::stoi(next());
    else if (a == "--edits") edits = std::stoi(next());
    else if (a == "--seed") seed = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--json") json_path = next();
    else if (a == "--md") md_path = next();
    else if (a == "--save-source") save_source = next();
    else if (a == "--in-process-only") in_process_only = true;
    else die("unknown option " + a);
  }
  if (lines < 100 || edits < 1) die("--lines must be at least 100 and --edits at least 1");
  signal(SIGPIPE, SIG_IGN);

  std::string text = gpulint::bench::make_training_script(lines);
  if (!save_source.empty()) std::ofstream(save_source) << text;
  std::vector<std::string> doc_lines;
  {
    std::stringstream ss(text);
    std::string l;
    while (std::getline(ss, l)) doc_lines.push_back(l);
  }
  // Lines an edit may touch: code lines with a call (`(`), so typing lands inside arguments.
  std::vector<int> call_lines;
  for (int i = 0; i < static_cast<int>(doc_lines.size()); ++i)
    if (doc_lines[i].find('(') != std::string::npos && doc_lines[i].rfind("    ", 0) == 0) call_lines.push_back(i);

  // The edit sequence (warm-up first), generated once and used by both measurements.
  std::vector<json> changes;
  std::vector<int> kinds;  // 0: character in a call, 1: statement line, 2: comment (undo: same kind)
  {
    std::mt19937 rng(seed);
    json undo;
    for (int e = 0; e < edits + warmup; ++e) {
      json change;
      if (!undo.is_null()) {
        change = undo;
        undo = nullptr;
        kinds.push_back(kinds.back());
      } else {
        int line = call_lines[rng() % call_lines.size()];
        const std::string& lt = doc_lines[static_cast<std::size_t>(line)];
        int kind = static_cast<int>(rng() % 3);
        kinds.push_back(kind);
        switch (kind) {
          case 0: {  // type a character inside the call's parentheses, delete it next
            int col = static_cast<int>(lt.find('(')) + 1;
            change = {{"range", {{"start", position(line, col)}, {"end", position(line, col)}}}, {"text", "x"}};
            undo = {{"range", {{"start", position(line, col)}, {"end", position(line, col + 1)}}}, {"text", ""}};
            break;
          }
          case 1: {  // a new statement line above, removed next
            std::string indent = lt.substr(0, lt.find_first_not_of(' '));
            change = {{"range", {{"start", position(line, 0)}, {"end", position(line, 0)}}},
                      {"text", indent + "tmp = x.sum()\n"}};
            undo = {{"range", {{"start", position(line, 0)}, {"end", position(line + 1, 0)}}}, {"text", ""}};
            break;
          }
          default: {  // a comment typed at the end of the line, removed next
            int col = static_cast<int>(lt.size());
            change = {{"range", {{"start", position(line, col)}, {"end", position(line, col)}}}, {"text", "  # todo"}};
            undo = {{"range", {{"start", position(line, col)}, {"end", position(line, col + 8)}}}, {"text", ""}};
            break;
          }
        }
      }
      changes.push_back(change);
    }
  }

  const std::string uri = "file:///tmp/gpulint-lsp-latency/train_long.py";
  std::vector<double> samples;
  std::size_t min_diags = SIZE_MAX, max_diags = 0;
  double open_ms = 0;
  double server_cpu_start = 0, server_cpu_per_edit = 0;  // CPU time of the server process
  if (!in_process_only) {
    Child server(exe);
    server.send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                 {"params", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}}}});
    json init = server.read();
    if (!init.contains("result")) die("initialize failed: " + init.dump());
    server.send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}});
    auto t_open = Clock::now();
    server.send({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                 {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}});
    auto wait_for = [&](int version, std::size_t* ndiag) {
      for (;;) {
        json m = server.read();
        if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"].value("version", -1) == version) {
          *ndiag = m["params"]["diagnostics"].size();
          return;
        }
      }
    };
    std::size_t open_diags = 0;
    wait_for(1, &open_diags);
    open_ms = std::chrono::duration<double, std::milli>(Clock::now() - t_open).count();

    int version = 1;
      for (int e = 0; e < edits + warmup; ++e) {
      if (e == warmup) server_cpu_start = server.cpu_ms();
      ++version;
      auto t0 = Clock::now();
      server.send({{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"},
                   {"params", {{"textDocument", {{"uri", uri}, {"version", version}}},
                               {"contentChanges", json::array({changes[static_cast<std::size_t>(e)]})}}}});
      std::size_t nd = 0;
      wait_for(version, &nd);
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (e >= warmup) {
        samples.push_back(ms);
        min_diags = std::min(min_diags, nd);
        max_diags = std::max(max_diags, nd);
      }
    }
    server_cpu_per_edit = (server.cpu_ms() - server_cpu_start) / static_cast<double>(edits);
    server.send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
    for (;;) {
      json m = server.read();
      if (m.contains("id") && m["id"] == 2) break;
    }
    server.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    int rc = server.finish();
    if (rc != 0) die("the server exited with " + std::to_string(rc));

  }

  // In-process breakdown of one re-lint.
  std::vector<double> reparse_ms, analyse_ms, scratch_ms, model_ms, facts_ms;
  std::vector<double> reparse_cpu_ms, analyse_cpu_ms;  // this thread's CPU time (load-independent)
  auto thread_cpu_ms = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
  };
  std::vector<double> reparse_by_kind[3];
  // What the server does after the re-parse: RelintCache (comment-only edits reuse the last
  // analysis, others analyse the file), per kind of edit.
  std::vector<double> relint_ms, relint_by_kind[3];
  uint32_t relint_reused = 0, relint_total = 0;
  {
    using gpulint::LineCol;
    gpulint::lsp::Document doc(uri, "/tmp/gpulint-lsp-latency/train_long.py", "python", 1, text);
    doc.tree();
    gpulint::FileSettings settings = gpulint::FileSettings::all_rules_enabled();
    gpulint::lsp::RelintCache relint;
    for (int e = 0; e < edits + warmup; ++e) {
      const json& c = changes[static_cast<std::size_t>(e)];
      gpulint::lsp::Range r{{c["range"]["start"]["line"], c["range"]["start"]["character"]},
                            {c["range"]["end"]["line"], c["range"]["end"]["character"]}};
      double c0 = thread_cpu_ms();
      auto t0 = Clock::now();
      doc.apply_change(r, c["text"].get<std::string>());
      const gpulint::python::Tree* tree = doc.tree();
      auto t1 = Clock::now();
      double c1 = thread_cpu_ms();
      gpulint::SourceFile src(doc.path(), doc.text());
      gpulint::FileReport rep = gpulint::analyze_python_tree(src, tree->raw(), settings);
      auto t2 = Clock::now();
      double c2 = thread_cpu_ms();
      uint32_t reused_before = relint.reused();
      gpulint::FileReport rep2 = relint.relint(src, tree->raw(), settings);
      auto t2b = Clock::now();
      if (std::string diff = report_difference(rep2, rep); !diff.empty())
        die(fmt_edit_mismatch(e, relint.reused() > reused_before, diff));
      if (e >= warmup) {
        reparse_cpu_ms.push_back(c1 - c0);
        analyse_cpu_ms.push_back(c2 - c1);
        reparse_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        reparse_by_kind[kinds[static_cast<std::size_t>(e)]].push_back(reparse_ms.back());
        analyse_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
        relint_ms.push_back(std::chrono::duration<double, std::milli>(t2b - t2).count());
        relint_by_kind[kinds[static_cast<std::size_t>(e)]].push_back(relint_ms.back());
        ++relint_total;
        if (relint.reused() > reused_before) ++relint_reused;
        // The analysis' two big parts, timed on their own (the semantic model, then the facts
        // built from it), every 5th edit.
        if (e % 5 == 0) {
          auto t3 = Clock::now();
          gpulint::python::SemanticModel model(src.text(), tree->root());
          auto t4 = Clock::now();
          gpulint::FileFacts facts = gpulint::python::build_facts(model, src);
          auto t5 = Clock::now();
          model_ms.push_back(std::chrono::duration<double, std::milli>(t4 - t3).count());
          facts_ms.push_back(std::chrono::duration<double, std::milli>(t5 - t4).count());
        }
        if (e % 10 == 0) {  // a from-scratch parse of the same text, every 10th edit
          auto t3 = Clock::now();
          gpulint::python::Tree fresh = gpulint::python::Tree::parse(doc.text());
          scratch_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t3).count());
        }
      }
    }
  }
  auto stats = [](const std::vector<double>& v) {
    if (v.empty()) return json{{"p50", nullptr}, {"p99", nullptr}};
    return json{{"p50", percentile(v, 50)}, {"p99", percentile(v, 99)}};
  };

  double sum = 0;
  for (double v : samples) sum += v;
  json result = {
      {"benchmark", "didChange -> publishDiagnostics, gpulint server over pipes"},
      {"document_lines", lines},
      {"document_bytes", text.size()},
      {"edits", samples.size()},
      {"warmup_edits", warmup},
      {"seed", seed},
      {"in_process_ms",
       {{"incremental_reparse", stats(reparse_ms)},
        {"incremental_reparse_character_in_call", stats(reparse_by_kind[0])},
        {"incremental_reparse_statement_line", stats(reparse_by_kind[1])},
        {"incremental_reparse_comment", stats(reparse_by_kind[2])},
        {"parse_from_scratch", stats(scratch_ms)},
        {"analyze_python_tree", stats(analyse_ms)},
        {"relint", stats(relint_ms)},
        {"relint_character_in_call", stats(relint_by_kind[0])},
        {"relint_statement_line", stats(relint_by_kind[1])},
        {"relint_comment", stats(relint_by_kind[2])},
        {"semantic_model", stats(model_ms)},
        {"build_facts", stats(facts_ms)}}},
      {"relint_reused_analysis", {{"edits", relint_total}, {"reused", relint_reused}}},
      {"in_process_cpu_ms",
       {{"incremental_reparse", stats(reparse_cpu_ms)}, {"analyze_python_tree", stats(analyse_cpu_ms)}}},
  };
  if (!samples.empty()) {
    result["diagnostics_per_publish"] = {{"min", min_diags}, {"max", max_diags}};
    result["didOpen_to_publish_ms"] = open_ms;
    result["server_cpu_ms_per_edit"] = server_cpu_per_edit;
    result["latency_ms"] = {{"p50", percentile(samples, 50)}, {"p90", percentile(samples, 90)},
                            {"p99", percentile(samples, 99)},
                            {"max", *std::max_element(samples.begin(), samples.end())},
                            {"mean", sum / static_cast<double>(samples.size())}};
  }
  std::cout << result.dump(2) << "\n";
  if (!json_path.empty()) std::ofstream(json_path) << result.dump(2) << "\n";
  if (!md_path.empty() && !samples.empty()) {
    const json& l = result["latency_ms"];
    std::ofstream md(md_path);
    char buf[512];
    md << "# LSP latency: didChange → publishDiagnostics\n\n";
    std::snprintf(buf, sizeof buf,
                  "`gpulint server` over pipes, a generated %d-line training script (%zu bytes, %zu–%zu "
                  "diagnostics per publish), %zu incremental edits after %d warm-up edits.\n\n",
                  lines, text.size(), min_diags, max_diags, samples.size(), warmup);
    md << buf;
    md << "| p50 | p90 | p99 | max | mean | didOpen → publish |\n|---|---|---|---|---|---|\n";
    std::snprintf(buf, sizeof buf, "| %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms |\n",
                  l["p50"].get<double>(), l["p90"].get<double>(), l["p99"].get<double>(), l["max"].get<double>(),
                  l["mean"].get<double>(), open_ms);
    md << buf;
    const json& ip = result["in_process_ms"];
    md << "\nWhere one re-lint goes (in process, same edits):\n\n| step | p50 | p99 |\n|---|---|---|\n";
    for (const char* k : {"incremental_reparse", "incremental_reparse_character_in_call",
                          "incremental_reparse_statement_line", "incremental_reparse_comment",
                          "parse_from_scratch", "analyze_python_tree", "relint", "relint_character_in_call",
                          "relint_statement_line", "relint_comment", "semantic_model", "build_facts"}) {
      std::snprintf(buf, sizeof buf, "| %s | %.2f ms | %.2f ms |\n", k, ip[k]["p50"].get<double>(),
                    ip[k]["p99"].get<double>());
      md << buf;
    }
    const json& cp = result["in_process_cpu_ms"];
    std::snprintf(buf, sizeof buf,
                  "\nCPU time (this thread's: less sensitive than wall time to other processes on the machine): "
                  "incremental_reparse p50 %.2f ms, p99 %.2f ms; analyze_python_tree p50 %.2f ms, "
                  "p99 %.2f ms. The server process used %.2f ms of CPU per edit (mean).\n",
                  cp["incremental_reparse"]["p50"].get<double>(), cp["incremental_reparse"]["p99"].get<double>(),
                  cp["analyze_python_tree"]["p50"].get<double>(), cp["analyze_python_tree"]["p99"].get<double>(),
                  server_cpu_per_edit);
    md << buf;
  }
  return 0;
}
