// Config discovery, parsing and validation (toml++), and per-file settings resolution.
#include "analyzer/config.h"

#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace gpulint {
namespace fs = std::filesystem;

namespace {

std::string_view type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

class Parser {
 public:
  explicit Parser(const std::string& display) : display_(display) {}

  [[noreturn]] void fail(uint32_t line, std::string_view key, std::string_view reason) const {
    throw ConfigError(fmt::format("{}:{}: key `{}`: {}", display_, line, key, reason));
  }
  static uint32_t line_of(const toml::node& n) { return n.source().begin.line; }

  std::vector<std::string> strings(const toml::node& v, std::string_view key) const {
    const toml::array* arr = v.as_array();
    if (!arr) fail(line_of(v), key, fmt::format("expected an array of strings, found {}",
                                                type_name(v.type())));
    std::vector<std::string> out;
    for (const toml::node& e : *arr) {
      const auto* s = e.as_string();
      if (!s)
        fail(line_of(e), key, fmt::format("expected an array of strings, found {} in it",
                                          type_name(e.type())));
      out.push_back(s->get());
    }
    return out;
  }

  std::vector<std::string> selectors(const toml::node& v, std::string_view key) const {
    auto list = strings(v, key);
    const toml::array* arr = v.as_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!selector_is_known(list[i]))
        fail(line_of(*arr->get(i)), key, unknown_selector_message(list[i]));
    }
    return list;
  }

  void read(const toml::table& t, Settings& s) const {
    for (auto&& [k, v] : t) {
      std::string key(k.str());
      uint32_t kline = k.source().begin.line ? k.source().begin.line : line_of(v);
      if (key == "select") {
        s.selection.select = selectors(v, key);
      } else if (key == "extend-select") {
        s.selection.extend_select = selectors(v, key);
      } else if (key == "ignore") {
        s.selection.ignore = selectors(v, key);
      } else if (key == "exclude") {
        s.exclude = strings(v, key);
      } else if (key == "extend-exclude") {
        s.extend_exclude = strings(v, key);
      } else if (key == "respect-gitignore") {
        const auto* b = v.as_boolean();
        if (!b) fail(line_of(v), key, fmt::format("expected a boolean, found {}", type_name(v.type())));
        s.respect_gitignore = b->get();
      } else if (key == "per-file-ignores") {
        const toml::table* pt = v.as_table();
        if (!pt)
          fail(line_of(v), key,
               fmt::format("expected a table of glob = [codes], found {}", type_name(v.type())));
        for (auto&& [pk, pv] : *pt) {
          std::string glob(pk.str());
          std::string sub = fmt::format("per-file-ignores.\"{}\"", glob);
          PerFileIgnore pfi;
          std::string_view g = glob;
          while (g.size() >= 2 && g.substr(0, 2) == "./") g.remove_prefix(2);
          auto p = PathPattern::parse(g);
          if (!p) fail(pk.source().begin.line ? pk.source().begin.line : line_of(pv), sub,
                       "empty glob");
          pfi.pattern = std::move(*p);
          pfi.codes = selectors(pv, sub);
          s.per_file_ignores.push_back(std::move(pfi));
        }
      } else if (key == "dataloader-num-workers") {
        if (const auto* str = v.as_string()) {
          if (str->get() != "auto")
            fail(line_of(v), key,
                 fmt::format("expected \"auto\" or a positive integer, found \"{}\"", str->get()));
          s.options.dataloader_num_workers = "auto";
        } else if (const auto* i = v.as_integer()) {
          if (i->get() < 1 || i->get() > 1024)
            fail(line_of(v), key,
                 fmt::format("expected \"auto\" or an integer from 1 to 1024, found {}", i->get()));
          s.options.dataloader_num_workers = std::to_string(i->get());
        } else {
          fail(line_of(v), key,
               fmt::format("expected \"auto\" or a positive integer, found {}", type_name(v.type())));
        }
      } else if (key == "torch-version") {
        const auto* str = v.as_string();
        if (!str)
          fail(line_of(v), key, fmt::format("expected a string such as \"2.4\", found {}",
                                            type_name(v.type())));
        static const std::regex version_re(R"(^[0-9]+\.[0-9]+(\.[0-9]+)?$)");
        if (!std::regex_match(str->get(), version_re))
          fail(line_of(v), key,
               fmt::format("expected a version such as \"2.4\" or \"2.4.1\", found \"{}\"",
                           str->get()));
        s.options.torch_version = str->get();
      } else {
        std::string hint;
        if (key == "tool") hint = " (in gpulint.toml the keys are top-level; `[tool.gpulint]` "
                                  "belongs in pyproject.toml)";
        fail(kline, key,
             fmt::format("unknown key; expected one of select, extend-select, ignore, "
                         "per-file-ignores, exclude, extend-exclude, respect-gitignore, "
                         "dataloader-num-workers, torch-version{}",
                         hint));
      }
    }
  }


 private:
  const std::string& display_;
};

toml::table parse_toml(std::string_view text, const std::string& display) {
  try {
    return toml::parse(text, display);
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}:{}: invalid TOML: {}", display, e.source().begin.line,
                                  e.description()));
  }
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

void compile_filter(Settings& s) {
  std::vector<std::string> globs = s.exclude ? *s.exclude : default_excludes();
  globs.insert(globs.end(), s.extend_exclude.begin(), s.extend_exclude.end());
  s.filter = ExcludeFilter::from_globs(s.root, globs, s.respect_gitignore);
}

}  // namespace

std::string display_path_for(const fs::path& abs, const fs::path& cwd) {
  if (auto rel = relative_under(abs, cwd); rel && !rel->empty()) return *rel;
  return abs.string();
}

Settings default_settings(const fs::path& root) {
  Settings s;
  s.root = root;
  compile_filter(s);
  return s;
}

Settings parse_config_text(std::string_view text, bool pyproject, const fs::path& root,
                           const std::string& display) {
  toml::table doc = parse_toml(text, display);
  Settings s;
  s.root = root;
  const toml::table* t = &doc;
  if (pyproject) {
    toml::node* tool = doc.get("tool");
    toml::node* mine = tool && tool->is_table() ? tool->as_table()->get("gpulint") : nullptr;
    if (!mine) {
      compile_filter(s);
      return s;
    }
    if (!mine->is_table())
      throw ConfigError(fmt::format("{}:{}: key `tool.gpulint`: expected a table, found {}", display,
                                    mine->source().begin.line, type_name(mine->type())));
    t = mine->as_table();
  }
  Parser p(display);
  p.read(*t, s);
  compile_filter(s);
  return s;
}

Settings load_config_file(const fs::path& file, bool pyproject, const fs::path& root,
                          const std::string& display) {
  auto text = read_file(file);
  if (!text) throw ConfigError(fmt::format("{}: cannot read the config file", display));
  Settings s = parse_config_text(*text, pyproject, root, display);
  s.config_file = file;
  return s;
}

std::optional<fs::path> config_file_in(const fs::path& dir, const fs::path& cwd) {
  for (const char* name : {".gpulint.toml", "gpulint.toml"}) {
    std::error_code ec;
    if (fs::is_regular_file(dir / name, ec)) return dir / name;
  }
  fs::path py = dir / "pyproject.toml";
  std::error_code ec;
  if (!fs::is_regular_file(py, ec)) return std::nullopt;
  auto text = read_file(py);
  if (!text) return std::nullopt;  // unreadable pyproject.toml: not ours to judge
  // Cheap pre-check before a full parse: most pyproject.toml files have no gpulint table.
  if (text->find("gpulint") == std::string::npos) return std::nullopt;
  toml::table doc = parse_toml(*text, cwd.empty() ? py.string() : display_path_for(py, cwd));
  if (doc.at_path("tool.gpulint")) return py;
  return std::nullopt;
}

ConfigResolver::ConfigResolver(fs::path cwd, std::optional<fs::path> config_override,
                               CliOverrides cli)
    : cwd_(std::move(cwd)), cli_(std::move(cli)) {
  defaults_ = finish(default_settings(cwd_));
  if (config_override) {
    fs::path abs = absolute_normal(*config_override, cwd_);
    std::error_code ec;
    if (!fs::exists(abs, ec))
      throw ConfigError(fmt::format("{}: config file not found", config_override->string()));
    bool pyproject = abs.filename() == "pyproject.toml";
    override_ = finish(load_config_file(abs, pyproject, cwd_, config_override->string()));
  }
}

std::shared_ptr<const Settings> ConfigResolver::finish(Settings s) {
  RuleSelection cli_layer{cli_.select, cli_.extend_select, cli_.ignore};
  s.enabled = enabled_codes({s.selection, cli_layer});
  return std::make_shared<const Settings>(std::move(s));
}

std::shared_ptr<const Settings> ConfigResolver::lookup(const fs::path& abs_dir) {
  if (override_) return override_;
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = by_dir_.find(abs_dir);
  if (it != by_dir_.end()) return it->second;
  std::shared_ptr<const Settings> result;
  if (auto file = config_file_in(abs_dir, cwd_)) {
    auto fit = by_file_.find(*file);
    if (fit != by_file_.end()) {
      result = fit->second;
    } else {
      bool pyproject = file->filename() == "pyproject.toml";
      result = finish(load_config_file(*file, pyproject, abs_dir, display_path_for(*file, cwd_)));
      by_file_[*file] = result;
    }
  } else {
    fs::path parent = abs_dir.parent_path();
    result = (parent.empty() || parent == abs_dir) ? defaults_ : lookup(parent);
  }
  by_dir_[abs_dir] = result;
  return result;
}

const Settings& ConfigResolver::settings_for_dir(const fs::path& abs_dir) {
  return *lookup(abs_dir);
}

FileSettings ConfigResolver::file_settings(const fs::path& abs_file) {
  std::shared_ptr<const Settings> s = lookup(abs_file.parent_path());
  FileSettings fs_out;
  fs_out.enabled = s->enabled;
  fs_out.options = s->options;
  if (!s->per_file_ignores.empty()) {
    auto rel = relative_under(abs_file, s->root);
    std::string rel_path = rel ? *rel : abs_file.filename().string();
    for (const PerFileIgnore& p : s->per_file_ignores) {
      // A pattern also applies when it matches one of the file's directories ("tests/").
      bool m = p.pattern.matches(rel_path, false);
      if (!m && rel) {
        for (fs::path a = abs_file.parent_path(); a != s->root && relative_under(a, s->root);
             a = a.parent_path()) {
          if (p.pattern.matches(*relative_under(a, s->root), true)) {
            m = true;
            break;
          }
        }
      }
      if (m == p.pattern.negated) continue;
      for (auto it = fs_out.enabled.begin(); it != fs_out.enabled.end();) {
        bool drop = false;
        for (const auto& sel : p.codes)
          if (selector_matches(sel, *it)) drop = true;
        it = drop ? fs_out.enabled.erase(it) : std::next(it);
      }
    }
  }
  return fs_out;
}

}  // namespace gpulint
