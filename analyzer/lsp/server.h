// `gpulint server`: a Language Server Protocol 3.17 server over stdio (DESIGN.md, "LSP server").
//
// Capabilities announced in the `initialize` result:
//   - textDocumentSync: open/close, incremental changes (TextDocumentSyncKind.Incremental),
//     save notifications. Each change is applied to the document text and recorded on its
//     tree-sitter tree with ts_tree_edit; the next analysis re-parses from the edited tree.
//   - diagnostics: pushed with textDocument/publishDiagnostics after didOpen/didChange, or, when
//     the client announces `textDocument.diagnostic` (pull diagnostics), answered through
//     textDocument/diagnostic (diagnosticProvider) and not pushed. They are exactly what
//     `gpulint check` reports for the same text: analyze_python_tree with the settings of the
//     closest configuration file ([tool.gpulint] / gpulint.toml), noqa applied.
//   - codeActionProvider: each diagnostic's fix as a `quickfix` (unsafe fixes say so in their
//     title), "Add `# noqa: CODE`" (quickfix), and `source.fixAll.gpulint` (every safe fix, and
//     unsafe ones when the `unsafeFixes` setting is true, applied in rounds as `check --fix`).
//   - hoverProvider: over a diagnostic, the rule's documentation (Markdown).
// Settings (initializationOptions, or workspace/didChangeConfiguration `settings`, either as
// is or under a `gpulint` key): `select`, `extendSelect`, `ignore` (rule selectors layered on
// top of the configuration file, as the command line's flags are), `unsafeFixes` (bool),
// `configFile` (a path used instead of discovery, as `--config`).
//
// Protocol errors (JSON-RPC 2.0 codes): a malformed header block or invalid JSON → -32700 with
// id null; a message that is not a JSON-RPC 2.0 request/notification → -32600; an unknown
// request → -32601 (unknown notifications, `$/` ones included, are ignored); bad params →
// -32602; a request before `initialize` → -32002 (notifications are dropped); a request after
// `shutdown` → -32600. `exit` ends the server with 0 after `shutdown`, 1 otherwise; so does the
// end of the input stream. Nothing a client sends makes the server crash or hang.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "analyzer/config.h"
#include "analyzer/lsp/document.h"
#include "analyzer/lsp/relint.h"
#include "analyzer/lsp/transport.h"

namespace CLI {
class App;
}

namespace gpulint::lsp {

/// JSON-RPC / LSP error codes used by the server.
namespace error_code {
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;
}  // namespace error_code

/// Settings a client can change (see the file comment).
struct ClientSettings {
  std::vector<std::string> select, extend_select, ignore;
  bool unsafe_fixes = false;
  std::string config_file;  ///< empty: discover configuration files
};

class Server {
 public:
  /// Messages to the client go to `out` (framed). `cwd`: the directory used as the workspace
  /// root when the client names none (absolute).
  explicit Server(std::ostream& out, std::filesystem::path cwd = std::filesystem::current_path());

  /// Reads and handles messages from `in` until `exit` or the end of the stream; returns the
  /// process exit code (0 when `shutdown` came first, 1 otherwise).
  int run(std::istream& in);

  /// Handles one message body (JSON text) and publishes the diagnostics it made due. Returns
  /// true when it was `exit`. (run() instead defers the diagnostics of `didChange` while more
  /// input is buffered, so a burst of changes is analysed once.)
  bool handle_message(std::string_view body);
  /// Answers a framing error (MessageReader's BadHeader) with a -32700 error, id null.
  void report_bad_header(const std::string& why);

  bool shutdown_requested() const { return shutdown_; }
  int exit_code() const { return shutdown_ ? 0 : 1; }
  /// The open document with this URI, or nullptr (tests).
  Document* document(const std::string& uri);
  /// The report of the open document with this URI as the server publishes it now (analysed
  /// here first if its text or settings changed since the last analysis), or nullptr when no
  /// such document is open (tests: the incremental analysis against a from-scratch one).
  const FileReport* report(const std::string& uri);

 private:
  struct OpenDocument {
    std::unique_ptr<Document> doc;
    std::optional<FileSettings> settings;  ///< nullopt: configuration error (config_error)
    std::string config_error;
    FileReport report;                     ///< of doc->text() as last analysed
    std::optional<SourceFile> source;      ///< what `report` points into (nullopt: invalid text)
    bool dirty = true;                     ///< text or settings changed since the analysis
    RelintCache relint;                    ///< the last analysis, for comment-only edits
  };

  bool dispatch_message(std::string_view body);
  void flush_publishes();
  void handle_request(const nlohmann::json& id, const std::string& method,
                      const nlohmann::json& params);
  void handle_notification(const std::string& method, const nlohmann::json& params);

  nlohmann::json on_initialize(const nlohmann::json& params);
  nlohmann::json on_code_action(const nlohmann::json& params);
  nlohmann::json on_hover(const nlohmann::json& params);
  nlohmann::json on_pull_diagnostic(const nlohmann::json& params);
  void on_did_open(const nlohmann::json& params);
  void on_did_change(const nlohmann::json& params);
  void on_did_save(const nlohmann::json& params);
  void on_did_close(const nlohmann::json& params);
  void on_did_change_configuration(const nlohmann::json& params);
  void on_did_change_watched_files(const nlohmann::json& params);

  void apply_settings(const nlohmann::json& settings);
  void reload_configuration();
  void resolve_settings(OpenDocument& od);
  /// Analyses the document if its text changed since the last analysis.
  void analyse(OpenDocument& od);
  void publish(OpenDocument& od);
  void relint_all();
  nlohmann::json diagnostics_json(const OpenDocument& od) const;
  nlohmann::json diagnostic_json(const OpenDocument& od, const Diagnostic& d) const;
  nlohmann::json range_json(const SourceFile& src, uint32_t start, uint32_t end) const;
  OpenDocument* find(const nlohmann::json& text_document);

  void send_response(const nlohmann::json& id, nlohmann::json result);
  void send_error(const nlohmann::json& id, int code, const std::string& message);
  void send_notification(const std::string& method, nlohmann::json params);
  void show_message(int type, const std::string& message);
  void log_message(int type, const std::string& message);

  MessageWriter writer_;
  std::filesystem::path cwd_;
  std::filesystem::path root_;
  bool initialized_ = false;
  bool shutdown_ = false;
  bool pull_diagnostics_ = false;       ///< the client supports textDocument/diagnostic
  bool refresh_support_ = false;        ///< ... and workspace/diagnostic/refresh
  ClientSettings settings_;
  std::unique_ptr<ConfigResolver> resolver_;
  std::string resolver_error_;          ///< the configFile setting could not be loaded
  std::map<std::string, OpenDocument> docs_;
  std::set<std::string> shown_errors_;  ///< configuration errors already shown to the user
  int64_t next_request_id_ = 1;
  std::set<std::string> pending_publish_;  ///< URIs whose diagnostics are due (push mode)
  bool defer_publish_ = false;             ///< set by run(): see handle_message
};

/// Registers the `server` subcommand on `app` (main() tests `->parsed()`).
CLI::App* add_server_subcommand(CLI::App& app);
/// Runs the server on stdin/stdout (SIGPIPE ignored); returns the exit code.
int run_server_command();

}  // namespace gpulint::lsp
