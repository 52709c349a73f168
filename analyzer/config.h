// Configuration: `[tool.gpulint]` in pyproject.toml, or the top level of `gpulint.toml` /
// `.gpulint.toml`. The closest config file to each analysed file wins (searched upward from
// the file's directory; in one directory `.gpulint.toml` beats `gpulint.toml` beats a
// pyproject.toml that has a `[tool.gpulint]` table); `--config FILE` replaces discovery;
// command-line selections are applied on top (Ruff's layering).
//
// Keys: select, extend-select, ignore (arrays of rule selectors), per-file-ignores (table:
// glob → array of selectors), exclude, extend-exclude (arrays of globs), respect-gitignore
// (bool), dataloader-num-workers ("auto" or a positive integer), torch-version ("2.4").
// Globs with a '/' are relative to the config file's directory (to the working directory for
// `--config FILE`, as Ruff does); globs without one match a file or directory name anywhere.
//
// Every mistake is an error, never ignored: "FILE:LINE: key `x`: reason" (ConfigError).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/discovery.h"
#include "analyzer/glob.h"
#include "analyzer/rule.h"

namespace gpulint {

/// An invalid or unreadable config file. what(): "FILE:LINE: key `x`: reason" or
/// "FILE:LINE: invalid TOML: <toml++'s description>"; the CLI prints it and exits 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One `per-file-ignores` entry.
struct PerFileIgnore {
  PathPattern pattern;              ///< `!glob` inverts (applies to files NOT matching)
  std::vector<std::string> codes;   ///< rule selectors
};

/// The contents of one config file (or the built-in defaults).
struct Settings {
  std::filesystem::path config_file;  ///< empty: built-in defaults
  std::filesystem::path root;         ///< directory the '/'-globs are relative to (absolute)
  RuleSelection selection;            ///< select / extend-select / ignore of the file
  std::vector<PerFileIgnore> per_file_ignores;
  std::optional<std::vector<std::string>> exclude;  ///< replaces default_excludes()
  std::vector<std::string> extend_exclude;
  bool respect_gitignore = true;
  RuleOptions options;
  ExcludeFilter filter;               ///< compiled from exclude / extend-exclude
  std::set<std::string> enabled;      ///< this config's selection with the CLI's on top
};

/// Built-in settings (no config file), globs relative to `root`.
Settings default_settings(const std::filesystem::path& root);

/// Parses one config file. `pyproject` = true reads its `[tool.gpulint]` table (an absent
/// table gives the defaults). `root`: the directory the '/'-globs are relative to.
/// `display`: how the file is named in error messages. Throws ConfigError.
Settings load_config_file(const std::filesystem::path& file, bool pyproject,
                          const std::filesystem::path& root, const std::string& display);

/// Parses config text (the same as load_config_file without I/O; for tests and stdin tools).
Settings parse_config_text(std::string_view text, bool pyproject,
                           const std::filesystem::path& root, const std::string& display);

/// The config file gpulint reads in directory `dir` (absolute), if any. Reads a
/// pyproject.toml to see whether it has a `[tool.gpulint]` table, so a malformed one throws
/// ConfigError (its message names the file relative to `cwd` when below it).
std::optional<std::filesystem::path> config_file_in(const std::filesystem::path& dir,
                                                    const std::filesystem::path& cwd = {});

/// Command-line selection flags, layered over each config's selection.
struct CliOverrides {
  std::vector<std::string> select;
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
};

/// Finds, loads and caches the settings of every directory. Thread-safe.
class ConfigResolver {
 public:
  /// `cwd`: absolute working directory. `config_override`: `--config FILE` (loaded now;
  /// ConfigError when invalid). The CLI selectors are not validated here (see
  /// selector_is_known).
  ConfigResolver(std::filesystem::path cwd, std::optional<std::filesystem::path> config_override,
                 CliOverrides cli);

  /// The settings that apply to files in `abs_dir` (absolute, lexically normal): those of the
  /// closest config file at or above it. Throws ConfigError on an invalid file.
  const Settings& settings_for_dir(const std::filesystem::path& abs_dir);
  /// The resolved settings of one file: enabled codes (config + CLI, minus per-file-ignores)
  /// and rule options. `abs_file`: absolute, lexically normal. Throws ConfigError.
  FileSettings file_settings(const std::filesystem::path& abs_file);
  /// The exclusion filter for discovery inside `abs_dir`.
  const ExcludeFilter& filter_for_dir(const std::filesystem::path& abs_dir) {
    return settings_for_dir(abs_dir).filter;
  }

 private:
  std::shared_ptr<const Settings> lookup(const std::filesystem::path& abs_dir);
  std::shared_ptr<const Settings> finish(Settings s);

  std::filesystem::path cwd_;
  CliOverrides cli_;
  std::shared_ptr<const Settings> override_;
  std::shared_ptr<const Settings> defaults_;
  std::map<std::filesystem::path, std::shared_ptr<const Settings>> by_dir_;
  std::map<std::filesystem::path, std::shared_ptr<const Settings>> by_file_;
  std::recursive_mutex mu_;
};

/// How a path is named in messages: relative to `cwd` when below it, else as given.
std::string display_path_for(const std::filesystem::path& abs, const std::filesystem::path& cwd);

}  // namespace gpulint
