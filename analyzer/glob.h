// Glob patterns with gitignore's wildcard semantics, and the path filters built from them:
// .gitignore files (discovery) and the `exclude` / `per-file-ignores` globs of the config.
//
// Paths given to the matchers use '/' separators and are relative (no leading "/" or "./").
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulint {

/// One compiled glob. Wildcards (as in gitignore(5)):
///   `*`   any run of characters except '/'      `?`  one character except '/'
///   `[a-z]`, `[!abc]`, `[^abc]`  a character class (never matches '/')
///   `**/` zero or more whole directories; a trailing `/**` everything below; `\x` a literal x.
/// A `[` without its closing `]` is a literal. Construction never throws.
class Glob {
 public:
  Glob() = default;
  explicit Glob(std::string_view pattern);

  /// True when the whole of `path` matches the pattern.
  bool matches(std::string_view path) const;
  const std::string& pattern() const { return pattern_; }

 private:
  enum class Kind : uint8_t { Literal, AnyChar, Class, Star, DirStar, AllStar };
  struct Token {
    Kind kind = Kind::Literal;
    char ch = 0;
    bool negated = false;
    std::vector<std::pair<unsigned char, unsigned char>> ranges;  // Class: inclusive ranges
  };
  bool match_from(std::size_t pi, std::string_view text, std::size_t ti,
                  std::vector<int8_t>& memo) const;
  bool class_matches(const Token& t, unsigned char c) const;

  std::string pattern_;
  std::vector<Token> tokens_;
  bool literal_only_ = true;
  std::string literal_;
};

/// One pattern line of a .gitignore file (or of a config `exclude` list).
struct PathPattern {
  Glob glob;
  bool negated = false;   ///< `!pattern`: re-includes
  bool dir_only = false;  ///< `pattern/`: matches directories only
  bool anchored = false;  ///< contains a '/' (other than a trailing one): matched against the
                          ///< path relative to the base directory, otherwise the basename

  /// Parses one pattern; nullopt for blank lines and `#` comments. Handles gitignore's
  /// escapes (`\#`, `\!`, `\ ` trailing space) and strips unescaped trailing spaces.
  static std::optional<PathPattern> parse(std::string_view line);
  /// `rel_path`: the path relative to the base directory ('/'-separated).
  bool matches(std::string_view rel_path, bool is_dir) const;
};

/// The patterns of one .gitignore file (or .git/info/exclude), relative to `base`.
class IgnoreFile {
 public:
  IgnoreFile() = default;
  /// `content`: the file's text; `base`: the absolute directory its patterns are relative to.
  IgnoreFile(std::string_view content, std::filesystem::path base);
  /// Reads and parses `file` (relative to `base`); nullopt when it does not exist or is
  /// unreadable (an unreadable .gitignore is treated as absent, as git does).
  static std::optional<IgnoreFile> read(const std::filesystem::path& file,
                                        std::filesystem::path base);

  /// The last pattern matching `rel_path` decides: true = ignored, false = re-included by a
  /// `!` pattern, nullopt = no pattern matches (the parent directory's files decide).
  std::optional<bool> decide(std::string_view rel_path, bool is_dir) const;
  const std::filesystem::path& base() const { return base_; }
  bool empty() const { return patterns_.empty(); }

 private:
  std::filesystem::path base_;
  std::vector<PathPattern> patterns_;
};

/// Lexically normal absolute form of `p` (relative paths are taken from `cwd`).
std::filesystem::path absolute_normal(const std::filesystem::path& p,
                                      const std::filesystem::path& cwd);

/// `path` relative to `base` with '/' separators when `path` is `base` or below it
/// (both absolute, lexically normal); nullopt otherwise. `base` itself gives "".
std::optional<std::string> relative_under(const std::filesystem::path& path,
                                          const std::filesystem::path& base);

}  // namespace gpulint
