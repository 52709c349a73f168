// `gpulint confirm SCRIPT [-- ARGS...]`: re-runs a training script with and without each
// finding's fix and reports, with the numbers, whether the fix makes it faster (or stops its
// memory growing). DESIGN.md, "Runtime confirmation"; issue 4.
//
//   1. check SCRIPT with every rule; each finding with a fix (safe or unsafe) gets a variant
//      (that fix applied to a copy in a temp dir), plus baseline and all-fixed;
//   2. every variant runs `PYTHON VARIANT ARGS` in the user's cwd and environment with the
//      harness (runtime_check/harness/*.py, embedded) first on PYTHONPATH; it times
//      --warmup + --steps steps of the training loop and writes JSON;
//   3. variants alternate (A B A B ...) for --repeats rounds while NVML is sampled;
//   4. medians, run-to-run spread and a verdict per finding; a table, --json, --html.
//
// Exit codes: 0 every run finished (whatever the verdicts), 2 an error (bad input, a script
// that crashes, hangs or never reaches its loop), 130 interrupted (Ctrl-C; the child's process
// group is killed and the temp dir removed).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace gpulint::runtime_check {

struct ConfirmOptions {
  std::string script;
  std::vector<std::string> args;   ///< the script's own arguments
  std::string python = "python3";  ///< a path, or a name looked up on PATH
  int repeats = 3;
  int warmup = 5;
  int steps = 30;
  double timeout_s = 600;          ///< per run
  std::string json_path;           ///< --json FILE ("" none)
  std::string html_path;           ///< --html FILE ("" none)
  int loop_line = 0;               ///< --loop-line N: time this loop header (1-based); 0 auto
  bool sync = false;               ///< --sync: torch.cuda.synchronize() at step boundaries
  std::vector<std::string> select; ///< --select: only these rules' findings (selectors)
  bool quiet = false;              ///< no progress lines
  // Not on the command line (tests):
  double kill_grace_s = 5;         ///< SIGTERM → SIGKILL delay
  std::string nvml_library = "libnvidia-ml.so.1";
};

/// Registers `confirm` on `app`; its options fill `opts`. Returns the subcommand, so that
/// main() can test `->parsed()` and then call run_confirm_command(opts).
CLI::App* add_confirm_subcommand(CLI::App& app, ConfirmOptions& opts);

/// Runs `gpulint confirm` with progress on stderr and the report on stdout; the exit code.
int run_confirm_command(const ConfirmOptions& opts);
/// The same, writing to `out` (report) and `err` (progress, warnings, errors).
int run_confirm(const ConfirmOptions& opts, std::ostream& out, std::ostream& err);

// --- building blocks (tested on their own) ----------------------------------------------------

/// The 1-based line of the innermost `for`/`while` header enclosing 0-based `line0` of a
/// Python text (by indentation), or nullopt.
std::optional<uint32_t> enclosing_loop_line(std::string_view text, uint32_t line0);
/// Where 1-based `line` of `from` is in `to` (an edited copy): the identical line nearest to
/// the same position; `line` itself when there is none.
uint32_t map_line(std::string_view from, uint32_t line, std::string_view to);

/// The child's environment: `base` ("NAME=value") without GPULINT_HARNESS_*, with
/// PYTHONPATH=harness_dir[:old] and the harness's variables.
struct HarnessEnv {
  std::string harness_dir;
  std::string out_json;
  int warmup = 5;
  int steps = 30;
  std::string script_dir;
  std::optional<uint32_t> loop_line;
  bool sync = false;
};
std::vector<std::string> child_environment(const std::vector<std::string>& base,
                                           const HarnessEnv& h);

}  // namespace gpulint::runtime_check
