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
// C++ programs (FILE.cpp/.cc/.cxx): `gpulint confirm FILE.cpp --build 'CMD' --run 'CMD'`.
// The findings come from the C++ front end (when built in) or from --diagnostics FILE (the
// JSON of `gpulint check --output-format json`); the source tree (--root, default the CMake
// project's top level above FILE: find_project_root) is copied per variant into the temp dir
// without .git and without CMake build trees (directories holding CMakeCache.txt); the
// variant's edits go into the copy of FILE; --build runs once per copy (`sh -c`, in the
// copy's root); --run is timed as whole runs (one untimed warm-up run per variant by default,
// then A B A B rounds): wall time, peak RSS (wait4), NVML utilisation and per-process memory.
//
// Exit codes: 0 every run finished (whatever the verdicts), 2 an error (bad input, a script
// that crashes, hangs or never reaches its loop), 130 interrupted (Ctrl-C; the child's process
// group is killed and the temp dir removed).
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/diagnostic.h"
#include "analyzer/source.h"

namespace CLI {
class App;
}

namespace gpulint::runtime_check {

/// Opens the C++ front end for `build_dir` (-p; "" = compile_commands.json discovery) and
/// returns its analysis function; empty with *error set when it cannot be opened. Set by the
/// binary when it links analyzer/cpp (GPULINT_CPP); empty otherwise.
using CppAnalysisFactory =
    std::function<std::function<FileReport(const SourceFile&, const FileSettings&)>(
        const std::string& build_dir, std::string* error)>;

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
  // C++ programs:
  std::string build_command;       ///< --build CMD (`sh -c`, in the copy's root)
  std::string run_command;         ///< --run CMD (`sh -c`, in the copy's root), timed
  std::string root;                ///< --root DIR; "": find_project_root(script)
  std::string diagnostics_path;    ///< --diagnostics FILE (check's JSON); "": the front end
  std::string build_dir;           ///< -p DIR for the C++ front end
  int warmup_runs = 1;             ///< --warmup-runs: untimed runs per variant before round 1
  double build_timeout_s = 3600;   ///< --build-timeout, per build
  /// Long names of the options given on the command line (filled by the subcommand's parse
  /// callback), so Python-only and C++-only options can be refused where they do not apply.
  std::vector<std::string> given;
  CppAnalysisFactory cpp_front_end;
  // Not on the command line (tests):
  double kill_grace_s = 5;         ///< SIGTERM → SIGKILL delay
  std::string nvml_library = "libnvidia-ml.so.1";
};

/// An option of `confirm` that applies to one kind of program only: `name` is its long name as
/// the subcommand declares it ("--steps"; "args" for the script's arguments). The one table of
/// them (confirm_option_scopes) fills ConfirmOptions::given after parsing and decides which
/// options are refused for the other kind.
struct ConfirmOptionScope {
  enum class Language { Python, Cpp };
  std::string_view name;
  Language language;
};
/// Every Python-only and C++-only option of `confirm`, in the order of --help; options that
/// apply to both (--repeats, --timeout, --json, --html, --select, --quiet) are not listed.
const std::vector<ConfirmOptionScope>& confirm_option_scopes();

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

/// True for the C++ translation units `confirm` builds and runs: .cpp .cc .cxx .c++
/// (case-insensitive).
bool is_cpp_program(const std::filesystem::path& file);

/// True when the CMakeLists.txt at `cmakelists` calls project() (the command at the start of a
/// line, any case, outside a `#` comment): the top level of a CMake project. False when it
/// does not or cannot be read.
bool declares_project(const std::filesystem::path& cmakelists);

/// The default --root: the nearest directory at or above `file`'s directory whose
/// CMakeLists.txt calls project() (a src/CMakeLists.txt added with add_subdirectory does not,
/// so its project's top level is found; a sub-project of a monorepo does, so the search stops
/// there instead of climbing to the monorepo's top), never above a directory holding `.git`.
/// Without any project(): the nearest directory holding a CMakeLists.txt and then its parents
/// as long as they hold one too. nullopt when there is no CMakeLists.txt at or above.
std::optional<std::filesystem::path> find_project_root(const std::filesystem::path& file);

/// Copies the source tree `from` into `to` (created): regular files, directories and symbolic
/// links (as links), without `.git` and without any directory holding a CMakeCache.txt (a
/// build tree: its absolute paths would make CMake refuse the copy). The skipped build trees
/// are appended to *skipped (paths relative to `from`). False with *error set on an I/O error.
bool copy_source_tree(const std::filesystem::path& from, const std::filesystem::path& to,
                      std::vector<std::string>* skipped, std::string* error);

/// Writes `bytes` to `copy_root / rel`, a file of a tree made by copy_source_tree, never
/// through a symbolic link (the copy keeps links as links, and one may point back into the
/// user's tree, which `confirm` must not modify): a link at the file itself is replaced by a
/// regular file; a linked directory on the way, or a `rel` that leaves `copy_root`, is an
/// error. False with *error set on that or an I/O error.
bool write_file_in_copy(const std::filesystem::path& copy_root, const std::filesystem::path& rel,
                        std::string_view bytes, std::string* error);

/// The diagnostics of `file` in the JSON array `gpulint check --output-format json` writes
/// (Ruff's schema: filename, code, message, location/end_location {row, column} 1-based in
/// code points, fix {applicability, message, edits[{content, location, end_location}]}),
/// turned back into byte offsets of `src`. Entries are matched to `file` by canonical path
/// (symbolic links resolved, relative filenames taken against the working directory). When no
/// entry is `file` and `root` (the project's top level, not empty) is given, a report made in
/// another checkout of the project is accepted: entries whose filename ends in `file`'s path
/// relative to `root` (all of its components, e.g. src/train.cpp) are taken, with a note in
/// *notes; two such filenames are an error. No entry for `file` gives an empty vector, except
/// when the report names another file of the same name (an error: it was made elsewhere).
/// Entries whose code is not a gpulint rule are left out with a note in *notes. nullopt with
/// *error set when the text is not such JSON, or a location lies outside `src` (the JSON was
/// made from another version of the file).
std::optional<std::vector<Diagnostic>> diagnostics_from_json(std::string_view json_text,
                                                             const SourceFile& src,
                                                             const std::filesystem::path& file,
                                                             const std::filesystem::path& root,
                                                             std::vector<std::string>* notes,
                                                             std::string* error);

}  // namespace gpulint::runtime_check
