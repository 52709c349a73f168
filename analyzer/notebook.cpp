#include "analyzer/notebook.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpulint {

using ojson = nlohmann::ordered_json;

struct Notebook::Impl {
  ojson doc;
};

bool is_notebook_path(std::string_view path) {
  if (path.size() < 6) return false;
  std::string ext(path.substr(path.size() - 6));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".ipynb";
}

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.push_back(text.substr(pos));
      break;
    }
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::string_view ltrim(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string_view rtrim(std::string_view s) {
  std::size_t n = s.size();
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) --n;
  return s.substr(0, n);
}

bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// IPython-only syntax on one line (its first line, for a continued magic): `%magic`, `!shell`,
// `?obj`, `obj?` / `obj??`, and `a, b = !cmd` / `x = %magic` assignments.
bool is_ipython_line(std::string_view line) {
  std::string_view s = rtrim(ltrim(line));
  if (s.empty()) return false;
  if (s[0] == '%' || s[0] == '!' || s[0] == '?') return true;
  if (s.back() == '?') {
    std::string_view body = s.substr(0, s.find('?'));
    if (!body.empty() && std::all_of(body.begin(), body.end(), is_word) &&
        s.find_first_not_of('?', body.size()) == std::string_view::npos)
      return true;
  }
  // `names = !cmd` / `names = %magic`: the left side is names, commas and spaces only.
  std::size_t eq = s.find('=');
  if (eq != std::string_view::npos && eq > 0 && eq + 1 < s.size() && s[eq + 1] != '=') {
    std::string_view lhs = s.substr(0, eq);
    bool names = std::all_of(lhs.begin(), lhs.end(),
                             [](char c) { return is_word(c) || c == ',' || c == ' '; });
    std::string_view rhs = ltrim(s.substr(eq + 1));
    if (names && !rhs.empty() && (rhs[0] == '!' || rhs[0] == '%')) return true;
  }
  return false;
}

// Cell magics whose body is Python code.
bool python_body_cell_magic(std::string_view first_line) {
  std::string_view s = ltrim(first_line).substr(2);
  std::size_t n = 0;
  while (n < s.size() && is_word(s[n])) ++n;
  std::string_view name = s.substr(0, n);
  return name == "time" || name == "timeit" || name == "capture";
}

bool joined_source(const ojson& src, std::string* out) {
  if (src.is_string()) {
    *out = src.get<std::string>();
    return true;
  }
  if (!src.is_array()) return false;
  out->clear();
  for (const auto& piece : src) {
    if (!piece.is_string()) return false;
    out->append(piece.get_ref<const std::string&>());
  }
  return true;
}

ojson source_json(const std::string& text, bool as_string) {
  if (as_string) return text;
  ojson arr = ojson::array();
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    arr.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return arr;
}

}  // namespace

std::optional<Notebook> Notebook::parse(std::string_view bytes, LoadError* error) {
  auto fail = [&](std::string msg) -> std::optional<Notebook> {
    if (error) error->message = std::move(msg);
    return std::nullopt;
  };
  auto impl = std::make_shared<Impl>();
  try {
    impl->doc = ojson::parse(bytes.begin(), bytes.end());
  } catch (const ojson::parse_error& e) {
    return fail(fmt::format("not a valid notebook: invalid JSON at byte {}", e.byte));
  }
  const ojson& doc = impl->doc;
  if (!doc.is_object() || !doc.contains("cells") || !doc["cells"].is_array())
    return fail("not a Jupyter notebook: no `cells` list (nbformat 4 is required)");
  if (doc.contains("nbformat") && doc["nbformat"].is_number_integer() &&
      doc["nbformat"].get<int>() < 4)
    return fail(fmt::format("nbformat {} notebooks are not supported; convert with "
                            "`jupyter nbconvert --to notebook --nbformat 4`",
                            doc["nbformat"].get<int>()));

  Notebook nb;
  // The file's layout: nbformat writes 1-space indent and a final newline.
  std::size_t first_nl = bytes.find('\n');
  if (first_nl == std::string_view::npos || first_nl + 1 >= bytes.size()) {
    nb.indent_ = -1;
  } else {
    std::size_t i = first_nl + 1;
    while (i < bytes.size() && bytes[i] == ' ') ++i;
    nb.indent_ = static_cast<int>(i - first_nl - 1);
    if (nb.indent_ == 0) nb.indent_ = -1;
  }
  nb.final_newline_ = !bytes.empty() && bytes.back() == '\n';

  // The kernel language (metadata.language_info.name, else metadata.kernelspec.language).
  if (doc.contains("metadata") && doc["metadata"].is_object()) {
    const ojson& md = doc["metadata"];
    std::string lang;
    if (md.contains("language_info") && md["language_info"].is_object() &&
        md["language_info"].contains("name") && md["language_info"]["name"].is_string())
      lang = md["language_info"]["name"].get<std::string>();
    else if (md.contains("kernelspec") && md["kernelspec"].is_object() &&
             md["kernelspec"].contains("language") && md["kernelspec"]["language"].is_string())
      lang = md["kernelspec"]["language"].get<std::string>();
    std::string lower = lang;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!lang.empty() && lower != "python" && lower != "python3") nb.not_python_ = lang;
  }

  // A nonce that the notebook's own text does not contain, so separators and placeholders
  // can never be confused with user code.
  nb.nonce_ = "gpulint-nb";
  for (int k = 0; bytes.find(nb.nonce_) != std::string_view::npos; ++k)
    nb.nonce_ = fmt::format("gpulint-nb{}", k);

  const ojson& cells = doc["cells"];
  uint32_t module_line = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const ojson& cell = cells[i];
    if (!cell.is_object()) return fail(fmt::format("cell {}: not a JSON object", i + 1));
    if (!cell.contains("cell_type") || !cell["cell_type"].is_string() ||
        cell["cell_type"].get_ref<const std::string&>() != "code")
      continue;
    Span span;
    span.json_index = i;
    if (cell.contains("source")) {
      span.source_was_string = cell["source"].is_string();
      if (!joined_source(cell["source"], &span.original))
        return fail(fmt::format("cell {}: `source` is neither a string nor a list of strings",
                                i + 1));
    }
    if (!nb.not_python_.empty()) {
      nb.spans_.push_back(std::move(span));
      continue;
    }
    nb.separator_lines_.push_back(module_line++);
    nb.module_ += fmt::format("# {}:cell {}\n", nb.nonce_, nb.spans_.size());
    std::vector<std::string_view> lines = split_lines(span.original);
    bool whole_cell_magic = !lines.empty() && ltrim(lines[0]).substr(0, 2) == "%%" &&
                            !python_body_cell_magic(lines[0]);
    bool continuing = false;  // the previous line was a magic ending in a backslash
    for (std::size_t l = 0; l < lines.size(); ++l) {
      std::string_view line = lines[l];
      bool first_line_cell_magic = l == 0 && ltrim(line).substr(0, 2) == "%%";
      bool magic_start = !continuing && (first_line_cell_magic || is_ipython_line(line));
      if (whole_cell_magic || continuing || magic_start) {
        std::size_t id = nb.placeholders_.size();
        nb.placeholders_.emplace_back(line);
        if (magic_start && !whole_cell_magic) {
          std::string_view indent = line.substr(0, line.size() - ltrim(line).size());
          nb.module_ += fmt::format("{}pass  # {}:magic {}\n", indent, nb.nonce_, id);
        } else {
          nb.module_ += fmt::format("# {}:magic {}\n", nb.nonce_, id);
        }
        continuing = !whole_cell_magic && rtrim(line).size() > 0 && rtrim(line).back() == '\\';
      } else {
        nb.module_.append(line);
        nb.module_.push_back('\n');
      }
      ++module_line;
    }
    nb.spans_.push_back(std::move(span));
  }
  if (!nb.not_python_.empty()) nb.module_.clear();
  nb.doc_ = std::move(impl);
  return nb;
}

std::size_t Notebook::cell_lines() const {
  std::size_t n = 0;
  for (char c : module_)
    if (c == '\n') ++n;
  return n >= separator_lines_.size() ? n - separator_lines_.size() : 0;
}

CellPosition Notebook::cell_position(const SourceFile& module, uint32_t offset) const {
  LineCol lc = module.codepoint_position(offset);
  CellPosition pos;
  pos.column = lc.column;
  // Separators are found in the text itself: a fixed module may have more lines per cell.
  std::string prefix = fmt::format("# {}:cell ", nonce_);
  for (uint32_t l = lc.line + 1; l-- > 0;) {
    std::string_view t = module.line_text(l);
    if (t.substr(0, prefix.size()) != prefix) continue;
    std::size_t k = std::strtoul(std::string(t.substr(prefix.size())).c_str(), nullptr, 10);
    if (k < spans_.size()) {
      pos.cell = static_cast<uint32_t>(spans_[k].json_index + 1);
      pos.line = l == lc.line ? 0 : lc.line - l - 1;
      if (l == lc.line) pos.column = 0;
      return pos;
    }
  }
  if (!spans_.empty()) pos.cell = static_cast<uint32_t>(spans_[0].json_index + 1);
  pos.line = 0;
  return pos;
}

bool Notebook::is_placeholder_line(const SourceFile& module, uint32_t line) const {
  if (line >= module.line_count()) return false;
  return module.line_text(line).find(fmt::format("# {}:magic ", nonce_)) != std::string_view::npos;
}

std::optional<std::string> Notebook::write_back(std::string_view fixed_module,
                                                std::string* error) const {
  std::vector<std::string> texts(spans_.size());
  std::vector<bool> seen(spans_.size(), false);
  std::string cell_prefix = fmt::format("# {}:cell ", nonce_);
  std::string magic_tag = fmt::format("# {}:magic ", nonce_);
  std::vector<std::string_view> lines = split_lines(fixed_module);
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the module's final newline
  std::vector<std::vector<std::string>> per_cell(spans_.size());
  std::vector<std::string> before_first;
  long current = -1;
  for (std::string_view line : lines) {
    if (line.substr(0, cell_prefix.size()) == cell_prefix) {
      std::size_t k = std::strtoul(std::string(line.substr(cell_prefix.size())).c_str(), nullptr, 10);
      if (k >= spans_.size() || seen[k] || static_cast<long>(k) <= current) {
        if (error) *error = "the fixed notebook lost its cell structure; not written";
        return std::nullopt;
      }
      seen[k] = true;
      current = static_cast<long>(k);
      continue;
    }
    std::string restored(line);
    std::size_t tag = line.find(magic_tag);
    if (tag != std::string_view::npos) {
      std::size_t id = std::strtoul(std::string(line.substr(tag + magic_tag.size())).c_str(), nullptr, 10);
      if (id < placeholders_.size()) restored = placeholders_[id];
    }
    if (current < 0) before_first.push_back(std::move(restored));
    else per_cell[static_cast<std::size_t>(current)].push_back(std::move(restored));
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) {
    if (error) *error = "the fixed notebook lost its cell structure; not written";
    return std::nullopt;
  }
  if (!before_first.empty() && !per_cell.empty())
    per_cell[0].insert(per_cell[0].begin(), before_first.begin(), before_first.end());

  ojson doc = doc_->doc;
  for (std::size_t k = 0; k < spans_.size(); ++k) {
    std::string text;
    for (std::size_t i = 0; i < per_cell[k].size(); ++i) {
      if (i) text.push_back('\n');
      text += per_cell[k][i];
    }
    if (text == spans_[k].original) continue;
    doc["cells"][spans_[k].json_index]["source"] = source_json(text, spans_[k].source_was_string);
  }
  std::string out = doc.dump(indent_, ' ', false, ojson::error_handler_t::strict);
  if (final_newline_) out.push_back('\n');
  return out;
}

std::string Notebook::serialize() const {
  std::string out = doc_->doc.dump(indent_, ' ', false, ojson::error_handler_t::strict);
  if (final_newline_) out.push_back('\n');
  return out;
}

}  // namespace gpulint
