// The C++ (LibTorch) front end: Clang 16 LibTooling over compile_commands.json.
//
// One CppProject is shared by every thread of a run. For each translation unit it finds the
// compile command (the `-p BUILD_DIR` database, or the nearest compile_commands.json above the
// file, or fallback flags), reuses a cached precompiled header of <torch/torch.h> built with
// the same flags, parses the unit with LibTooling (a ToolInvocation, ClangTool's per-file
// step, with the analysed text served from memory) and turns the AST of the main file into the
// language-neutral FileFacts (analyzer/cpp/facts_builder.h) the rules read.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/cpp_paths.h"
#include "analyzer/source.h"

namespace gpulint::cpp {

/// Settings of the C++ front end for one run.
struct CppOptions {
  /// `-p BUILD_DIR`: the directory holding compile_commands.json. Empty: each file's nearest
  /// compile_commands.json above it, else the fallback flags.
  std::string build_dir;
  /// Use (and build when missing) the cached precompiled header of <torch/torch.h>.
  bool use_pch = true;
  /// Where PCHs are cached; empty: $XDG_CACHE_HOME/gpulint, else $HOME/.cache/gpulint, else
  /// $TMPDIR/gpulint-cache.
  std::string cache_dir;
  /// Receives one-time notes for the user (the fallback-flags line). Empty: std::cerr.
  std::function<void(const std::string&)> note;
};

/// Where a translation unit's compile command came from.
enum class CommandSource { Database, Inferred, Fallback };

/// The command a translation unit is parsed with.
struct TuCommand {
  std::vector<std::string> arguments;  ///< argv, argv[0] the compiler, the file last
  std::string directory;               ///< working directory of the command
  CommandSource source = CommandSource::Fallback;
};

class CppProject {
 public:
  /// Opens the project. With `options.build_dir` set, its compile_commands.json is loaded
  /// now: nullptr and `*error` = "PATH: reason" when it is missing or malformed (exit 2).
  static std::unique_ptr<CppProject> open(CppOptions options, std::string* error);
  ~CppProject();
  CppProject(const CppProject&) = delete;
  CppProject& operator=(const CppProject&) = delete;

  /// Analyses one C++ file (its text may differ from the disk: fixes are re-analysed in
  /// memory). Only the file's own declarations are searched: what an included header holds is
  /// reported when that header is analysed itself, so nothing is reported twice.
  ///
  /// A header (is_cpp_header_path) is analysed as its own main file, parsed as C++
  /// (`-x c++-header`, whatever language its command names; no "#pragma once in main file"
  /// warning in that mode): with the database's command for it, else the command clang's
  /// inferMissingCompileCommands interpolates from the nearest translation unit in the
  /// database, else the fallback flags plus `-I` of the header's directory. A header that
  /// uses `torch::` without including LibTorch gets <torch/torch.h>'s declarations first (the
  /// PCH), as the .cpp that includes it provides them. A header that names no LibTorch
  /// (no <torch/torch.h>, no `torch::`) and in which none is declared through its includes (a
  /// C header, a plain C++ utility) is left silent: an empty report, no syntax error. Never
  /// throws. A malformed compile_commands.json found above the file sets
  /// `FileReport::error`; clang's errors (a missing header, text that is not C++) set
  /// `syntax_error` with clang's first message and the count; what parsed is still analysed.
  /// Thread-safe.
  FileReport analyze(const SourceFile& source, const FileSettings& settings);

  /// The command `abs_path` (absolute) is parsed with, before gpulint's own adjustments
  /// (syntax-only, resource directory, PCH). nullopt with `*error` set when the database that
  /// applies is malformed. The fallback flags are announced once per run (CppOptions::note);
  /// for a header only when its analysis is not left silent.
  std::optional<TuCommand> command_for(const std::filesystem::path& abs_path, std::string* error);

  /// The fallback flags used without a compile_commands.json: -std=c++17 and the LibTorch
  /// include directories found ($LIBTORCH or $Torch_DIR's install prefix, then Debian's
  /// libtorch-dev under /usr/include).
  static std::vector<std::string> fallback_flags();

  /// Seconds spent building PCHs in this run, and how many were built / loaded from cache.
  struct PchStats {
    double build_seconds = 0;
    unsigned built = 0;
    unsigned reused = 0;
  };
  PchStats pch_stats() const;

 private:
  struct Impl;
  explicit CppProject(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};


}  // namespace gpulint::cpp
