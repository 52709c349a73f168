// File discovery: expands the PATHS of `gpulint check` into the files to analyse.
//
// Directories are walked recursively, in sorted order, following symbolic links (every
// directory is entered once, keyed by (device, inode), so symlink loops end). Skipped:
// the default excluded directories (`.git`, `.venv`, `venv`, `node_modules`, `build`, …),
// the config's `exclude` / `extend-exclude` globs, and paths ignored by .gitignore files
// (nested ones apply to their subtree, those of the enclosing git repository too, and
// `.git/info/exclude`). Files named on the command line are always analysed unless
// `force_exclude` is set. Only files whose extension is in `extensions` are picked from
// directories.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analyzer/glob.h"

namespace gpulint {

/// What a discovered file is, decided by its extension.
enum class FileKind { Python, PythonStub, Notebook, Cpp };

/// The directories skipped by default (Ruff's default `exclude` plus gpulint's additions).
/// A config `exclude` replaces this list; `extend-exclude` adds to it.
const std::vector<std::string>& default_excludes();

/// Extension (with the dot, lower case) → kind, for the files picked up in directories:
/// ".py", ".pyi" and ".ipynb" (C++ sources and headers are added when their front end exists; `gpulint
/// audit` adds them to its own map).
std::map<std::string, FileKind> default_extensions();

/// The exclusion settings of one directory's config.
struct ExcludeFilter {
  /// Patterns with a '/' are relative to this directory (absolute, lexically normal).
  std::filesystem::path root;
  /// gitignore-style patterns: no '/' → matched against the basename at any depth.
  std::vector<PathPattern> patterns;
  bool respect_gitignore = true;

  /// Builds the filter from glob strings (a leading "./" is dropped).
  static ExcludeFilter from_globs(std::filesystem::path root,
                                  const std::vector<std::string>& globs,
                                  bool respect_gitignore = true);
  /// True when `abs_path` (absolute, lexically normal) is excluded by the patterns.
  bool excluded(const std::filesystem::path& abs_path, bool is_dir) const;
};

/// One file to analyse.
struct DiscoveredFile {
  std::string path;                 ///< as it will be printed (relative when the argument was)
  std::filesystem::path absolute;   ///< absolute, lexically normal
  FileKind kind = FileKind::Python;
  bool explicit_path = false;       ///< named on the command line
};

struct DiscoveryOptions {
  /// The working directory relative paths are taken from (absolute).
  std::filesystem::path cwd;
  /// The exclusion filter that applies inside `abs_dir`; empty function: default_excludes()
  /// relative to `cwd`. May throw (ConfigError), which propagates out of discover_files.
  std::function<const ExcludeFilter&(const std::filesystem::path& abs_dir)> filter_for_dir;
  /// Apply excludes and .gitignore to files named on the command line too.
  bool force_exclude = false;
  std::map<std::string, FileKind> extensions = default_extensions();
};

struct DiscoveryResult {
  std::vector<DiscoveredFile> files;   ///< sorted by path, without duplicates
  std::vector<std::string> warnings;   ///< "PATH: reason" (unreadable directory, broken link)
  std::vector<std::string> errors;     ///< "PATH: reason" (a named path that does not exist)
};

/// Expands `paths` (files and directories; empty means "."). Never throws for I/O problems
/// (they become warnings or errors); only `filter_for_dir` may throw.
DiscoveryResult discover_files(const std::vector<std::string>& paths,
                               const DiscoveryOptions& options);

/// True when `abs_path` (absolute, lexically normal) is excluded as `--force-exclude` sees a
/// named path: by the exclude globs of its directory (or of one of its directories below the
/// config root), or by .gitignore. Used for named files and for `--stdin-filename`.
bool is_force_excluded(const std::filesystem::path& abs_path, bool is_dir,
                       const DiscoveryOptions& options);

/// The kind of file `path` is by its extension; Python for unknown extensions (an explicitly
/// named file is analysed as Python whatever its name).
FileKind kind_for_path(const std::filesystem::path& path,
                       const std::map<std::string, FileKind>& extensions);

/// True when `abs_path` (absolute, lexically normal), or one of its directories, is ignored by
/// .gitignore files: those from the enclosing git repository's root down (and its
/// `.git/info/exclude`), or, outside a repository, those from `fallback_root` down when the
/// path is below it.
bool is_gitignored(const std::filesystem::path& abs_path, bool is_dir,
                   const std::filesystem::path& fallback_root);

}  // namespace gpulint
