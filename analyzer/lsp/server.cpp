#include "analyzer/lsp/server.h"

#include <csignal>
#include <iostream>

#include <CLI/CLI.hpp>

#include "analyzer/fixer.h"
#include "analyzer/glob.h"
#include "analyzer/output.h"
#include "analyzer/rule.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace gpulint::lsp {
namespace {

constexpr std::string_view kFixAllKind = "source.fixAll.gpulint";

// A bad `params` member: answered with -32602 (requests) or logged (notifications).
struct InvalidParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const json& member(const json& obj, const char* key) {
  if (!obj.is_object()) throw InvalidParams("expected an object holding `" + std::string(key) + "`");
  auto it = obj.find(key);
  if (it == obj.end()) throw InvalidParams(std::string("missing `") + key + "`");
  return *it;
}

std::string string_member(const json& obj, const char* key) {
  const json& v = member(obj, key);
  if (!v.is_string()) throw InvalidParams(std::string("`") + key + "` must be a string");
  return v.get<std::string>();
}

uint32_t uint_member(const json& obj, const char* key) {
  const json& v = member(obj, key);
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > UINT32_MAX)
    throw InvalidParams(std::string("`") + key + "` must be a non-negative integer");
  return static_cast<uint32_t>(v.get<int64_t>());
}

LineCol position_of(const json& p) { return {uint_member(p, "line"), uint_member(p, "character")}; }

Range range_of(const json& r) {
  return {position_of(member(r, "start")), position_of(member(r, "end"))};
}

int severity_number(Severity s) {
  switch (s) {
    case Severity::Error: return 1;
    case Severity::Warning: return 2;
    case Severity::Info: return 3;
  }
  return 2;
}

bool is_python_document(const std::string& language_id, const std::string& path) {
  if (language_id == "python") return true;
  auto ends = [&](std::string_view suf) {
    return path.size() >= suf.size() && path.compare(path.size() - suf.size(), suf.size(), suf) == 0;
  };
  return ends(".py") || ends(".pyi");
}

bool is_config_file_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  return name == "pyproject.toml" || name == "gpulint.toml" || name == ".gpulint.toml";
}

// True when an action of `kind` is wanted by CodeActionContext.only (hierarchical: "source"
// covers "source.fixAll.gpulint").
bool kind_requested(const json& only, std::string_view kind) {
  if (!only.is_array()) return true;
  for (const json& o : only) {
    if (!o.is_string()) continue;
    std::string k = o.get<std::string>();
    if (kind == k || (kind.size() > k.size() && kind.substr(0, k.size()) == k && kind[k.size()] == '.'))
      return true;
  }
  return false;
}

std::vector<std::string> string_list(const json& v, const char* key, std::vector<std::string>* bad) {
  std::vector<std::string> out;
  if (!v.is_array()) throw InvalidParams(std::string("setting `") + key + "` must be an array of strings");
  for (const json& s : v) {
    if (!s.is_string()) throw InvalidParams(std::string("setting `") + key + "` must be an array of strings");
    std::string sel = s.get<std::string>();
    if (selector_is_known(sel)) out.push_back(sel);
    else bad->push_back(sel);
  }
  return out;
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

// In a `# noqa: A, B` comment, the byte index just past the last code (where ", CODE" goes);
// nullopt when the comment holds no `# noqa:` with codes.
std::optional<std::size_t> noqa_codes_end(std::string_view comment) {
  for (std::size_t h = comment.find('#'); h != std::string_view::npos; h = comment.find('#', h + 1)) {
    std::size_t j = h + 1;
    while (j < comment.size() && is_space(comment[j])) ++j;
    if (j + 4 > comment.size()) continue;
    std::string word(comment.substr(j, 4));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word != "noqa") continue;
    j += 4;
    while (j < comment.size() && is_space(comment[j])) ++j;
    if (j >= comment.size() || comment[j] != ':') continue;
    ++j;
    std::optional<std::size_t> last;
    std::size_t i = j;
    while (i < comment.size()) {
      while (i < comment.size() && (is_space(comment[i]) || comment[i] == ',')) ++i;
      std::size_t s = i;
      while (i < comment.size() && std::isalpha(static_cast<unsigned char>(comment[i]))) ++i;
      std::size_t le = i;
      while (i < comment.size() && std::isdigit(static_cast<unsigned char>(comment[i]))) ++i;
      if (le == s || i == le) break;
      if (i < comment.size() && (std::isalnum(static_cast<unsigned char>(comment[i])) || comment[i] == '_')) break;
      last = i;
    }
    if (last) return last;
  }
  return std::nullopt;
}

}  // namespace

Server::Server(std::ostream& out, fs::path cwd) : writer_(out), cwd_(std::move(cwd)), root_(cwd_) {}

Document* Server::document(const std::string& uri) {
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : it->second.doc.get();
}

const FileReport* Server::report(const std::string& uri) {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return nullptr;
  analyse(it->second);
  return &it->second.report;
}

void Server::flush_publishes() {
  std::set<std::string> uris;
  uris.swap(pending_publish_);
  for (const std::string& uri : uris) {
    auto it = docs_.find(uri);
    if (it != docs_.end() && !pull_diagnostics_) publish(it->second);
  }
}

int Server::run(std::istream& in) {
  defer_publish_ = true;
  MessageReader reader(in);
  for (;;) {
    ReadResult r = reader.next();
    switch (r.kind) {
      case ReadResult::Kind::Message:
        if (handle_message(r.body)) return exit_code();
        // Diagnostics of changed documents wait while more input is already buffered (a burst
        // of keystrokes is linted once, on its last change); they go out as soon as the client
        // has nothing more to say.
        if (!pending_publish_.empty() && in.rdbuf()->in_avail() <= 0) flush_publishes();
        break;
      case ReadResult::Kind::BadHeader:
        report_bad_header(r.error);
        break;
      case ReadResult::Kind::Eof:
        if (!r.error.empty()) std::cerr << "gpulint server: " << r.error << "\n";
        return exit_code();
    }
  }
}

void Server::report_bad_header(const std::string& why) {
  send_error(nullptr, error_code::kParseError, "malformed message header: " + why);
}

bool Server::handle_message(std::string_view body) {
  bool exit = dispatch_message(body);
  if (!defer_publish_ && !pending_publish_.empty()) flush_publishes();
  return exit;
}

bool Server::dispatch_message(std::string_view body) {
  json msg;
  try {
    msg = json::parse(body);
  } catch (const json::exception& e) {
    send_error(nullptr, error_code::kParseError, std::string("invalid JSON: ") + e.what());
    return false;
  }
  if (!msg.is_object()) {
    send_error(nullptr, error_code::kInvalidRequest,
               msg.is_array() ? "batch messages are not part of LSP" : "a message must be a JSON object");
    return false;
  }
  auto id_it = msg.find("id");
  bool has_id = id_it != msg.end();
  bool id_ok = has_id && (id_it->is_number_integer() || id_it->is_string());
  json id = id_ok ? *id_it : json(nullptr);
  auto jr = msg.find("jsonrpc");
  if (jr == msg.end() || *jr != "2.0") {
    send_error(id, error_code::kInvalidRequest, "`jsonrpc` must be \"2.0\"");
    return false;
  }
  auto method_it = msg.find("method");
  if (method_it == msg.end()) {
    // A response to one of our requests (workspace/diagnostic/refresh): nothing to do.
    if (has_id && (msg.contains("result") || msg.contains("error"))) return false;
    send_error(id, error_code::kInvalidRequest, "a request needs a `method`");
    return false;
  }
  if (!method_it->is_string() || (has_id && !id_ok)) {
    send_error(id, error_code::kInvalidRequest,
               !method_it->is_string() ? "`method` must be a string" : "`id` must be an integer or a string");
    return false;
  }
  std::string method = method_it->get<std::string>();
  json params = msg.contains("params") ? msg["params"] : json(nullptr);
  if (!params.is_null() && !params.is_object() && !params.is_array()) {
    if (has_id) send_error(id, error_code::kInvalidRequest, "`params` must be an object or an array");
    return false;
  }

  if (!has_id) {  // a notification
    if (method == "exit") return true;
    if (!initialized_ || shutdown_) return false;  // dropped, as the spec says
    try {
      handle_notification(method, params);
    } catch (const std::exception& e) {
      log_message(1, "gpulint: " + method + ": " + e.what());
    }
    return false;
  }
  if (method == "initialize") {
    if (initialized_) {
      send_error(id, error_code::kInvalidRequest, "`initialize` was already received");
      return false;
    }
  } else if (!initialized_) {
    send_error(id, error_code::kServerNotInitialized, "the server has not received `initialize`");
    return false;
  }
  if (shutdown_) {
    send_error(id, error_code::kInvalidRequest, "the server is shutting down (`shutdown` received)");
    return false;
  }
  try {
    handle_request(id, method, params);
  } catch (const InvalidParams& e) {
    send_error(id, error_code::kInvalidParams, method + ": " + e.what());
  } catch (const json::exception& e) {
    send_error(id, error_code::kInvalidParams, method + ": " + e.what());
  } catch (const std::exception& e) {
    send_error(id, error_code::kInternalError, method + ": " + e.what());
  }
  return false;
}

void Server::handle_request(const json& id, const std::string& method, const json& params) {
  if (method == "initialize") {
    json result = on_initialize(params);
    initialized_ = true;
    send_response(id, std::move(result));
  } else if (method == "shutdown") {
    shutdown_ = true;
    send_response(id, nullptr);
  } else if (method == "textDocument/codeAction") {
    send_response(id, on_code_action(params));
  } else if (method == "textDocument/hover") {
    send_response(id, on_hover(params));
  } else if (method == "textDocument/diagnostic") {
    send_response(id, on_pull_diagnostic(params));
  } else {
    send_error(id, error_code::kMethodNotFound, "unknown method `" + method + "`");
  }
}

void Server::handle_notification(const std::string& method, const json& params) {
  if (method == "textDocument/didOpen") on_did_open(params);
  else if (method == "textDocument/didChange") on_did_change(params);
  else if (method == "textDocument/didSave") on_did_save(params);
  else if (method == "textDocument/didClose") on_did_close(params);
  else if (method == "workspace/didChangeConfiguration") on_did_change_configuration(params);
  else if (method == "workspace/didChangeWatchedFiles") on_did_change_watched_files(params);
  // `initialized`, `$/cancelRequest` (every request is answered before the next is read),
  // `$/setTrace` and unknown notifications: nothing to do.
}

// --- lifecycle and settings ---------------------------------------------------------------

json Server::on_initialize(const json& params) {
  if (!params.is_object()) throw InvalidParams("`params` must be an object");
  std::optional<std::string> root;
  auto folders = params.find("workspaceFolders");
  if (folders != params.end() && folders->is_array() && !folders->empty() &&
      (*folders)[0].is_object() && (*folders)[0].contains("uri") && (*folders)[0]["uri"].is_string())
    root = uri_to_path((*folders)[0]["uri"].get<std::string>());
  if (!root) {
    auto ru = params.find("rootUri");
    if (ru != params.end() && ru->is_string()) root = uri_to_path(ru->get<std::string>());
  }
  if (!root) {
    auto rp = params.find("rootPath");
    if (rp != params.end() && rp->is_string() && !rp->get<std::string>().empty()) root = rp->get<std::string>();
  }
  if (root) root_ = absolute_normal(*root, cwd_);

  const json caps = params.value("capabilities", json::object());
  if (caps.is_object()) {
    const json td = caps.value("textDocument", json::object());
    pull_diagnostics_ = td.is_object() && td.contains("diagnostic") && td["diagnostic"].is_object();
    const json ws = caps.value("workspace", json::object());
    refresh_support_ = ws.is_object() && ws.contains("diagnostics") && ws["diagnostics"].is_object() &&
                       ws["diagnostics"].value("refreshSupport", false) == true;
  }
  auto init = params.find("initializationOptions");
  if (init != params.end() && init->is_object()) apply_settings(*init);
  reload_configuration();

  json caps_out = {
      {"positionEncoding", "utf-16"},
      {"textDocumentSync",
       {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"codeActionProvider",
       {{"codeActionKinds", json::array({"quickfix", std::string(kFixAllKind)})},
        {"resolveProvider", false}}},
      {"hoverProvider", true},
  };
  if (pull_diagnostics_)
    caps_out["diagnosticProvider"] = {{"identifier", "gpulint"},
                                      {"interFileDependencies", false},
                                      {"workspaceDiagnostics", false}};
  return {{"capabilities", caps_out},
          {"serverInfo", {{"name", "gpulint"}, {"version", GPULINT_VERSION}}}};
}

void Server::apply_settings(const json& raw) {
  const json* s = &raw;
  if (raw.is_object() && raw.contains("gpulint") && raw["gpulint"].is_object()) s = &raw["gpulint"];
  if (!s->is_object()) return;
  std::vector<std::string> bad;
  std::vector<std::string> problems;
  auto read_list = [&](std::initializer_list<const char*> keys, std::vector<std::string>& into) {
    for (const char* k : keys) {
      auto it = s->find(k);
      if (it == s->end() || it->is_null()) continue;
      try {
        into = string_list(*it, k, &bad);
      } catch (const InvalidParams& e) {
        problems.push_back(e.what());
      }
    }
  };
  ClientSettings next = settings_;
  read_list({"select"}, next.select);
  read_list({"extendSelect", "extend-select"}, next.extend_select);
  read_list({"ignore"}, next.ignore);
  for (const char* k : {"unsafeFixes", "unsafe-fixes"}) {
    auto it = s->find(k);
    if (it == s->end() || it->is_null()) continue;
    if (it->is_boolean()) next.unsafe_fixes = it->get<bool>();
    else problems.push_back(std::string("setting `") + k + "` must be true or false");
  }
  for (const char* k : {"configFile", "config"}) {
    auto it = s->find(k);
    if (it == s->end() || it->is_null()) continue;
    if (it->is_string()) next.config_file = it->get<std::string>();
    else problems.push_back(std::string("setting `") + k + "` must be a path");
  }
  settings_ = std::move(next);
  for (const auto& b : bad)
    problems.push_back(unknown_selector_message(b));
  for (const auto& p : problems) show_message(2, "gpulint: " + p);
}

void Server::reload_configuration() {
  resolver_error_.clear();
  shown_errors_.clear();
  std::optional<fs::path> config;
  if (!settings_.config_file.empty()) config = absolute_normal(settings_.config_file, root_);
  try {
    resolver_ = std::make_unique<ConfigResolver>(
        root_, config, CliOverrides{settings_.select, settings_.extend_select, settings_.ignore});
  } catch (const ConfigError& e) {
    resolver_.reset();
    resolver_error_ = e.what();
  } catch (const std::exception& e) {
    resolver_.reset();
    resolver_error_ = std::string("cannot read the configuration: ") + e.what();
  }
  for (auto& [uri, od] : docs_) resolve_settings(od);
}

void Server::resolve_settings(OpenDocument& od) {
  od.dirty = true;
  od.settings.reset();
  od.relint.clear();
  od.config_error.clear();
  if (!resolver_) {
    od.config_error = resolver_error_;
  } else {
    try {
      fs::path p = uri_to_path(od.doc->uri()) ? fs::path(od.doc->path()) : root_ / "untitled.py";
      od.settings = resolver_->file_settings(absolute_normal(p, root_));
    } catch (const ConfigError& e) {
      od.config_error = e.what();
    } catch (const std::exception& e) {
      od.config_error = std::string("cannot read the configuration: ") + e.what();
    }
  }
  if (!od.config_error.empty() && shown_errors_.insert(od.config_error).second)
    show_message(1, "gpulint: " + od.config_error + " (no diagnostics until it is fixed)");
}

void Server::relint_all() {
  if (pull_diagnostics_) {
    if (refresh_support_) {
      json req = {{"jsonrpc", "2.0"}, {"id", "gpulint-" + std::to_string(next_request_id_++)},
                  {"method", "workspace/diagnostic/refresh"}};
      writer_.send(req);
    }
    return;
  }
  for (auto& [uri, od] : docs_) publish(od);
}

void Server::on_did_change_configuration(const json& params) {
  if (params.is_object() && params.contains("settings")) apply_settings(params["settings"]);
  reload_configuration();
  relint_all();
}

void Server::on_did_change_watched_files(const json& params) {
  const json& changes = member(params, "changes");
  if (!changes.is_array()) throw InvalidParams("`changes` must be an array");
  for (const json& c : changes) {
    if (c.is_object() && c.contains("uri") && c["uri"].is_string()) {
      auto p = uri_to_path(c["uri"].get<std::string>());
      if (p && is_config_file_name(*p)) {
        reload_configuration();
        relint_all();
        return;
      }
    }
  }
}

// --- documents ------------------------------------------------------------------------------

Server::OpenDocument* Server::find(const json& text_document) {
  std::string uri = string_member(text_document, "uri");
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : &it->second;
}

void Server::on_did_open(const json& params) {
  const json& td = member(params, "textDocument");
  std::string uri = string_member(td, "uri");
  std::string language = td.contains("languageId") && td["languageId"].is_string()
                             ? td["languageId"].get<std::string>() : "";
  std::string text = string_member(td, "text");
  int64_t version = td.contains("version") && td["version"].is_number_integer() ? td["version"].get<int64_t>() : 0;
  std::string path = uri_to_path(uri).value_or(uri);
  if (!is_python_document(language, path)) return;
  OpenDocument od;
  od.doc = std::make_unique<Document>(uri, path, language, version, std::move(text));
  auto [it, inserted] = docs_.insert_or_assign(uri, std::move(od));
  resolve_settings(it->second);
  if (!pull_diagnostics_) publish(it->second);
}

void Server::on_did_change(const json& params) {
  const json& td = member(params, "textDocument");
  OpenDocument* od = find(td);
  if (!od) return;  // a change to a document that was never opened: ignored
  const json& changes = member(params, "contentChanges");
  if (!changes.is_array()) throw InvalidParams("`contentChanges` must be an array");
  // Validate every change before applying any, so a bad one leaves the text as it was.
  std::vector<std::pair<std::optional<Range>, const std::string*>> parsed;
  for (const json& c : changes) {
    const json& text = member(c, "text");
    if (!text.is_string()) throw InvalidParams("`text` must be a string");
    std::optional<Range> r;
    if (c.contains("range") && !c["range"].is_null()) r = range_of(c["range"]);
    parsed.emplace_back(r, text.get_ptr<const std::string*>());
  }
  for (const auto& [r, text] : parsed) od->doc->apply_change(r, *text);
  if (td.contains("version") && td["version"].is_number_integer())
    od->doc->set_version(td["version"].get<int64_t>());
  od->dirty = true;
  if (!pull_diagnostics_) pending_publish_.insert(od->doc->uri());
}

void Server::on_did_save(const json& params) {
  const json& td = member(params, "textDocument");
  std::string uri = string_member(td, "uri");
  auto p = uri_to_path(uri);
  if (p && is_config_file_name(*p)) {
    reload_configuration();
    relint_all();
  }
}

void Server::on_did_close(const json& params) {
  const json& td = member(params, "textDocument");
  std::string uri = string_member(td, "uri");
  auto it = docs_.find(uri);
  if (it == docs_.end()) return;
  docs_.erase(it);
  pending_publish_.erase(uri);
  if (!pull_diagnostics_)
    send_notification("textDocument/publishDiagnostics",
                      {{"uri", uri}, {"diagnostics", json::array()}});
}

// --- analysis and diagnostics -----------------------------------------------------------------

void Server::analyse(OpenDocument& od) {
  if (!od.dirty) return;
  od.dirty = false;
  od.report = FileReport{};
  LoadError err;
  od.source = SourceFile::from_bytes(od.doc->path(), od.doc->text(), &err);
  // The tree follows every edit, so that the next re-parse stays incremental.
  const python::Tree* tree = od.doc->tree();
  if (!od.source) {
    log_message(2, "gpulint: " + od.doc->path() + ": " + err.message);
    return;
  }
  if (!od.settings) return;
  if (od.source->had_bom()) {  // the tree covers the BOM, the SourceFile does not
    od.relint.clear();
    od.report = analyze_python(*od.source, *od.settings);
  } else {
    // Comment-only edits reuse the last analysis (analyzer/lsp/relint.h).
    od.report = od.relint.relint(*od.source, tree ? tree->raw() : nullptr, *od.settings);
  }
}

json Server::range_json(const SourceFile& src, uint32_t start, uint32_t end) const {
  LineCol a = src.utf16_position(start), b = src.utf16_position(end);
  return {{"start", {{"line", a.line}, {"character", a.column}}},
          {"end", {{"line", b.line}, {"character", b.column}}}};
}

json Server::diagnostic_json(const OpenDocument& od, const Diagnostic& d) const {
  json j = {{"range", range_json(*od.source, d.start, d.end)},
            {"severity", severity_number(d.severity)},
            {"code", d.code},
            {"codeDescription", {{"href", rule_url(d.code)}}},
            {"source", "gpulint"},
            {"message", d.message}};
  return j;
}

json Server::diagnostics_json(const OpenDocument& od) const {
  json arr = json::array();
  if (!od.source) return arr;
  for (const Diagnostic& d : od.report.diagnostics) arr.push_back(diagnostic_json(od, d));
  return arr;
}

void Server::publish(OpenDocument& od) {
  analyse(od);
  send_notification("textDocument/publishDiagnostics",
                    {{"uri", od.doc->uri()},
                     {"version", od.doc->version()},
                     {"diagnostics", diagnostics_json(od)}});
}

json Server::on_pull_diagnostic(const json& params) {
  OpenDocument* od = find(member(params, "textDocument"));
  if (!od) return {{"kind", "full"}, {"items", json::array()}};
  analyse(*od);
  return {{"kind", "full"}, {"items", diagnostics_json(*od)}};
}

// --- hover ------------------------------------------------------------------------------------

json Server::on_hover(const json& params) {
  OpenDocument* od = find(member(params, "textDocument"));
  LineCol pos = position_of(member(params, "position"));
  if (!od) return nullptr;
  analyse(*od);
  if (!od->source) return nullptr;
  uint32_t off = od->source->offset_from_utf16(pos);
  std::string md;
  std::set<std::string> seen;
  const Diagnostic* first = nullptr;
  for (const Diagnostic& d : od->report.diagnostics) {
    bool inside = d.start == d.end ? off == d.start : (off >= d.start && off < d.end);
    if (!inside || !seen.insert(d.code).second) continue;
    const Rule* rule = find_rule(d.code);
    if (!rule) continue;
    if (!first) first = &d;
    if (!md.empty()) md += "\n---\n\n";
    md += rule_page(*rule);
  }
  if (!first) return nullptr;
  return {{"contents", {{"kind", "markdown"}, {"value", md}}},
          {"range", range_json(*od->source, first->start, first->end)}};
}

// --- code actions -----------------------------------------------------------------------------

json Server::on_code_action(const json& params) {
  OpenDocument* od = find(member(params, "textDocument"));
  Range r = range_of(member(params, "range"));
  json actions = json::array();
  if (!od) return actions;
  json only = nullptr;
  if (params.contains("context") && params["context"].is_object())
    only = params["context"].value("only", json(nullptr));
  analyse(*od);
  if (!od->source || !od->settings) return actions;
  const SourceFile& src = *od->source;
  uint32_t a = src.offset_from_utf16(r.start), b = src.offset_from_utf16(r.end);
  if (a > b) std::swap(a, b);
  const std::string& uri = od->doc->uri();
  auto text_edit = [&](uint32_t s, uint32_t e, const std::string& content) {
    return json{{"range", range_json(src, s, e)}, {"newText", content}};
  };

  if (kind_requested(only, "quickfix")) {
    std::optional<python::TreeSummary> comments;
    for (const Diagnostic& d : od->report.diagnostics) {
      if (d.start > b || d.end < a) continue;
      json diag = diagnostic_json(*od, d);
      if (d.fix && !d.fix->edits.empty() && d.fix->applicability != Applicability::DisplayOnly) {
        json edits = json::array();
        for (const Edit& e : d.fix->edits) edits.push_back(text_edit(e.start, e.end, e.content));
        bool safe = d.fix->applicability == Applicability::Safe;
        actions.push_back({{"title", d.fix->message + (safe ? "" : " (unsafe fix)")},
                           {"kind", "quickfix"},
                           {"diagnostics", json::array({diag})},
                           {"isPreferred", safe},
                           {"edit", {{"changes", {{uri, edits}}}}}});
      }
      // `# noqa: CODE` on the diagnostic's first line (where suppressions are read).
      uint32_t line = src.line_of(d.start);
      uint32_t ls = src.line_start(line);
      std::string_view lt = src.line_text(line);
      uint32_t le = ls + static_cast<uint32_t>(lt.size());
      if (!comments) {
        python::Tree t = python::Tree::parse(src.text());
        comments = t.valid() ? python::summarize(t.root()) : python::TreeSummary{};
      }
      json edit;
      for (auto [cs, ce] : comments->comments) {
        if (cs < ls || cs > le) continue;
        if (auto end = noqa_codes_end(src.text().substr(cs, ce - cs))) {
          uint32_t at = cs + static_cast<uint32_t>(*end);
          edit = text_edit(at, at, ", " + d.code);
        }
      }
      if (edit.is_null()) edit = text_edit(le, le, "  # noqa: " + d.code);
      actions.push_back({{"title", "Add `# noqa: " + d.code + "` (suppress on this line)"},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({diag})},
                         {"edit", {{"changes", {{uri, json::array({edit})}}}}}});
    }
  }

  if (kind_requested(only, kFixAllKind) && only.is_array()) {
    // Only on request (`source.fixAll` from a save action or the source-action menu).
    const FileSettings settings = *od->settings;
    FixResult fixed = fix_source(src, od->report, settings_.unsafe_fixes,
                                 [&settings](const SourceFile& s) { return analyze_python(s, settings); });
    if (fixed.changed && !fixed.error) {
      std::string_view old_text = src.text(), new_text = fixed.text;
      // One edit: the differing middle (boundaries kept on UTF-8 character starts).
      std::size_t p = 0, n = std::min(old_text.size(), new_text.size());
      while (p < n && old_text[p] == new_text[p]) ++p;
      std::size_t k = 0;
      while (k < n - p && old_text[old_text.size() - 1 - k] == new_text[new_text.size() - 1 - k]) ++k;
      auto cont = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
      while (p > 0 && p < old_text.size() && cont(old_text[p])) --p;
      while (k > 0 && cont(old_text[old_text.size() - k])) --k;
      std::string replacement(new_text.substr(p, new_text.size() - k - p));
      uint32_t total = 0;
      for (const auto& [code, count] : fixed.fixed) total += count;
      actions.push_back(
          {{"title", "gpulint: fix all (" + std::to_string(total) + " fix" + (total == 1 ? "" : "es") + ")"},
           {"kind", std::string(kFixAllKind)},
           {"edit", {{"changes", {{uri, json::array({text_edit(static_cast<uint32_t>(p),
                                                               static_cast<uint32_t>(old_text.size() - k),
                                                               replacement)})}}}}}});
    }
  }
  return actions;
}

// --- output -------------------------------------------------------------------------------------

void Server::send_response(const json& id, json result) {
  writer_.send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Server::send_error(const json& id, int code, const std::string& message) {
  writer_.send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void Server::send_notification(const std::string& method, json params) {
  writer_.send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void Server::show_message(int type, const std::string& message) {
  send_notification("window/showMessage", {{"type", type}, {"message", message}});
}

void Server::log_message(int type, const std::string& message) {
  send_notification("window/logMessage", {{"type", type}, {"message", message}});
}

// --- command line -------------------------------------------------------------------------------

CLI::App* add_server_subcommand(CLI::App& app) {
  CLI::App* server = app.add_subcommand(
      "server", "Run the language server (LSP 3.17) on standard input and output");
  // vscode-languageclient appends `--stdio` for its stdio transport; stdio is the only one.
  server->add_flag("--stdio")->description("Talk LSP over standard input/output (the default and only transport)");
  return server;
}

int run_server_command() {
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away ends the read loop, not the process
  std::ios::sync_with_stdio(false);
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) cwd = "/";
  Server server(std::cout, cwd);
  return server.run(std::cin);
}

}  // namespace gpulint::lsp
