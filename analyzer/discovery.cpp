// File discovery: recursive, sorted, gitignore-aware, symlink-loop-safe expansion of PATHS.
#include "analyzer/discovery.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

namespace gpulint {
namespace fs = std::filesystem;

const std::vector<std::string>& default_excludes() {
  static const std::vector<std::string> list = {
      ".bzr",        ".direnv",      ".eggs",         ".git",          ".git-rewrite",
      ".hg",         ".ipynb_checkpoints", ".mypy_cache", ".nox",        ".pants.d",
      ".pyenv",      ".pytest_cache", ".pytype",      ".ruff_cache",   ".svn",
      ".tox",        ".venv",        ".vscode",       "__pycache__",   "__pypackages__",
      "_build",      "buck-out",     "build",         "dist",          "node_modules",
      "site-packages", "venv"};
  return list;
}

std::map<std::string, FileKind> default_extensions() {
  return {{".py", FileKind::Python}, {".pyi", FileKind::PythonStub}, {".ipynb", FileKind::Notebook}};
}

FileKind kind_for_path(const fs::path& path, const std::map<std::string, FileKind>& extensions) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto it = extensions.find(ext);
  return it == extensions.end() ? FileKind::Python : it->second;
}

ExcludeFilter ExcludeFilter::from_globs(fs::path root, const std::vector<std::string>& globs,
                                        bool respect_gitignore) {
  ExcludeFilter f;
  f.root = std::move(root);
  f.respect_gitignore = respect_gitignore;
  for (std::string_view g : globs) {
    while (g.size() >= 2 && g.substr(0, 2) == "./") g.remove_prefix(2);
    if (auto p = PathPattern::parse(g)) f.patterns.push_back(std::move(*p));
  }
  return f;
}

bool ExcludeFilter::excluded(const fs::path& abs_path, bool is_dir) const {
  if (patterns.empty()) return false;
  std::optional<std::string> rel = relative_under(abs_path, root);
  std::string base = abs_path.filename().string();
  bool result = false;
  for (const PathPattern& p : patterns) {
    bool m;
    if (p.dir_only && !is_dir) continue;
    if (p.anchored)
      m = rel && !rel->empty() && p.glob.matches(*rel);
    else
      m = p.glob.matches(base);
    if (m) result = !p.negated;
  }
  return result;
}

namespace {

const ExcludeFilter& default_filter(const fs::path& cwd) {
  static thread_local std::map<fs::path, ExcludeFilter> cache;
  auto it = cache.find(cwd);
  if (it == cache.end())
    it = cache.emplace(cwd, ExcludeFilter::from_globs(cwd, default_excludes())).first;
  return it->second;
}

bool exists_any(const fs::path& p) {
  struct stat st{};
  return ::lstat(p.c_str(), &st) == 0;
}

// The nearest directory at or above `dir` holding `.git` (a directory or a worktree file).
std::optional<fs::path> git_root(fs::path dir) {
  while (true) {
    if (exists_any(dir / ".git")) return dir;
    fs::path parent = dir.parent_path();
    if (parent == dir || parent.empty()) return std::nullopt;
    dir = parent;
  }
}

// The .gitignore chain (shallowest first) that applies inside `dir`, excluding `dir`'s own
// .gitignore: the repository's info/exclude and .gitignore files from its root down to
// `dir`'s parent. Outside a repository the chain starts at `fallback_root` when `dir` is below it.
std::vector<IgnoreFile> ancestor_chain(const fs::path& dir, const fs::path& fallback_root) {
  std::vector<IgnoreFile> chain;
  fs::path root;
  if (auto r = git_root(dir)) {
    root = *r;
    if (auto ex = IgnoreFile::read(root / ".git" / "info" / "exclude", root); ex && !ex->empty())
      chain.push_back(std::move(*ex));
  } else if (relative_under(dir, fallback_root)) {
    root = fallback_root;
  } else {
    return chain;
  }
  auto rel = relative_under(dir, root);
  if (!rel || rel->empty()) return chain;
  // root, root/a, root/a/b ... up to (not including) dir.
  std::vector<fs::path> levels{root};
  fs::path cur = root;
  std::string_view r = *rel;
  std::size_t pos = 0;
  while (true) {
    std::size_t slash = r.find('/', pos);
    if (slash == std::string_view::npos) break;
    cur /= std::string(r.substr(pos, slash - pos));
    levels.push_back(cur);
    pos = slash + 1;
  }
  for (const auto& level : levels)
    if (auto ig = IgnoreFile::read(level / ".gitignore", level); ig && !ig->empty())
      chain.push_back(std::move(*ig));
  return chain;
}

// Deepest file first; within a file the last matching pattern decides.
bool ignored_by(const std::vector<IgnoreFile>& chain, const fs::path& abs, bool is_dir) {
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    auto rel = relative_under(abs, it->base());
    if (!rel || rel->empty()) continue;
    if (auto d = it->decide(*rel, is_dir)) return *d;
  }
  return false;
}

std::string join_display(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

class Walker {
 public:
  Walker(const DiscoveryOptions& options, DiscoveryResult& out) : opt_(options), out_(out) {}

  const ExcludeFilter& filter_for(const fs::path& abs_dir) {
    if (opt_.filter_for_dir) return opt_.filter_for_dir(abs_dir);
    return default_filter(opt_.cwd);
  }

  void add_file(std::string display, const fs::path& abs, bool explicit_path) {
    if (!seen_files_.insert(abs.native()).second) return;
    out_.files.push_back(
        DiscoveredFile{std::move(display), abs, kind_for_path(abs, opt_.extensions), explicit_path});
  }

  void start(const std::string& arg) {
    fs::path given = fs::path(arg).lexically_normal();
    std::string display = given.string();
    while (display.size() > 1 && display.back() == '/') display.pop_back();
    if (display == ".") display.clear();
    fs::path abs = absolute_normal(arg, opt_.cwd);
    struct stat st{};
    if (::stat(abs.c_str(), &st) != 0) {
      int err = errno;
      if (::lstat(abs.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
        out_.errors.push_back(fmt::format("{}: broken symbolic link", arg));
      else
        out_.errors.push_back(fmt::format("{}: {}", arg, std::strerror(err)));
      return;
    }
    bool is_dir = S_ISDIR(st.st_mode);
    if (opt_.force_exclude && is_force_excluded(abs, is_dir, opt_)) return;
    if (!is_dir) {
      add_file(display.empty() ? arg : display, abs, true);
      return;
    }
    visited_.insert({st.st_dev, st.st_ino});
    chain_ = ancestor_chain(abs, opt_.cwd);
    walk(display, abs);
  }

 private:
  void walk(const std::string& display, const fs::path& abs) {
    const ExcludeFilter& filter = filter_for(abs);
    bool pushed = false;
    if (filter.respect_gitignore) {
      if (auto ig = IgnoreFile::read(abs / ".gitignore", abs); ig && !ig->empty()) {
        chain_.push_back(std::move(*ig));
        pushed = true;
      }
    }
    std::vector<std::pair<std::string, unsigned char>> entries;
    DIR* d = ::opendir(abs.c_str());
    if (!d) {
      out_.warnings.push_back(fmt::format("{}: cannot read directory: {}",
                                          display.empty() ? "." : display, std::strerror(errno)));
      if (pushed) chain_.pop_back();
      return;
    }
    while (dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      entries.emplace_back(std::string(name), e->d_type);
    }
    ::closedir(d);
    std::sort(entries.begin(), entries.end());

    for (const auto& [name, dtype] : entries) {
      fs::path child = abs / name;
      std::string child_display = join_display(display, name);
      bool is_dir = false, is_file = false;
      struct stat st{};
      bool have_stat = false;
      if (dtype == DT_DIR) {
        is_dir = true;
      } else if (dtype == DT_REG) {
        is_file = true;
      } else {
        // Symbolic links (followed), unknown types: ask stat.
        if (::stat(child.c_str(), &st) != 0) {
          if (dtype == DT_LNK && opt_.extensions.count(lower_ext(name)))
            out_.warnings.push_back(fmt::format("{}: broken symbolic link; skipped", child_display));
          continue;
        }
        have_stat = true;
        is_dir = S_ISDIR(st.st_mode);
        is_file = S_ISREG(st.st_mode);
      }
      if (!is_dir && !is_file) continue;
      if (is_file && !opt_.extensions.count(lower_ext(name))) continue;
      if (filter.excluded(child, is_dir)) continue;
      if (filter.respect_gitignore && ignored_by(chain_, child, is_dir)) continue;
      if (is_file) {
        add_file(child_display, child, false);
        continue;
      }
      if (!have_stat && ::stat(child.c_str(), &st) != 0) continue;
      if (!visited_.insert({st.st_dev, st.st_ino}).second) continue;  // loop or seen already
      walk(child_display, child);
    }
    if (pushed) chain_.pop_back();
  }

  static std::string lower_ext(const std::string& name) {
    std::size_t dot = name.rfind('.');
    if (dot == std::string::npos || dot == 0) return {};
    std::string ext = name.substr(dot);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
  }

  const DiscoveryOptions& opt_;
  DiscoveryResult& out_;
  std::set<std::pair<dev_t, ino_t>> visited_;
  std::unordered_set<std::string> seen_files_;
  std::vector<IgnoreFile> chain_;
};

}  // namespace

bool is_gitignored(const fs::path& abs_path, bool is_dir, const fs::path& fallback_root) {
  fs::path dir = abs_path.parent_path();
  std::optional<fs::path> root = git_root(dir);
  if (!root) {
    if (!relative_under(dir, fallback_root)) return false;
    root = fallback_root;
  }
  // The chain for the file's directory, including that directory's own .gitignore.
  std::vector<IgnoreFile> chain = ancestor_chain(dir, fallback_root);
  if (auto ig = IgnoreFile::read(dir / ".gitignore", dir); ig && !ig->empty())
    chain.push_back(std::move(*ig));
  if (ignored_by(chain, abs_path, is_dir)) return true;
  // A file inside an ignored directory is ignored whatever its own patterns say.
  for (fs::path a = dir; a != *root && relative_under(a, *root); a = a.parent_path())
    if (ignored_by(chain, a, true)) return true;
  return false;
}

bool is_force_excluded(const fs::path& abs, bool is_dir, const DiscoveryOptions& opt) {
  auto filter_for = [&](const fs::path& dir) -> const ExcludeFilter& {
    if (opt.filter_for_dir) return opt.filter_for_dir(dir);
    return default_filter(opt.cwd);
  };
  const ExcludeFilter& f = filter_for(abs.parent_path());
  if (f.excluded(abs, is_dir)) return true;
  for (fs::path a = abs.parent_path(); a != f.root && relative_under(a, f.root);
       a = a.parent_path()) {
    if (filter_for(a.parent_path()).excluded(a, true)) return true;
  }
  return f.respect_gitignore && is_gitignored(abs, is_dir, opt.cwd);
}

DiscoveryResult discover_files(const std::vector<std::string>& paths,
                               const DiscoveryOptions& options) {
  DiscoveryResult out;
  Walker walker(options, out);
  std::vector<std::string> args = paths;
  if (args.empty()) args.push_back(".");
  for (const auto& a : args) walker.start(a);
  std::sort(out.files.begin(), out.files.end(),
            [](const DiscoveredFile& a, const DiscoveredFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace gpulint
