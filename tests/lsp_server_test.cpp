// The LSP server driven in memory: framing (MessageReader), the JSON-RPC error rules, the
// lifecycle, incremental sync (text and tree against a fresh parse), diagnostics identical to
// analyze_python, code actions (quickfix, noqa, fixAll), hover, pull diagnostics, configuration.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "analyzer/config.h"
#include "analyzer/fixer.h"
#include "analyzer/lsp/server.h"
#include "analyzer/output.h"
#include "analyzer/python/syntax.h"
#include "test_util.h"

using nlohmann::json;
using namespace gpulint;
using namespace gpulint::lsp;
using gpulint::testing::TempDir;

namespace {

std::string fixture_text(const std::string& rel) {
  return gpulint::testing::read_file(std::filesystem::path(GPULINT_SOURCE_DIR) / rel);
}

// Splits framed output into JSON messages (and checks the framing is exact).
std::vector<json> parse_frames(const std::string& bytes) {
  std::istringstream in(bytes);
  MessageReader reader(in);
  std::vector<json> out;
  for (;;) {
    ReadResult r = reader.next();
    if (r.kind == ReadResult::Kind::Eof) {
      EXPECT_EQ(r.error, "");
      return out;
    }
    EXPECT_EQ(r.kind, ReadResult::Kind::Message) << r.error;
    out.push_back(json::parse(r.body));
  }
}

std::string framed(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class Session {
 public:
  explicit Session(std::filesystem::path root = std::filesystem::path(GPULINT_SOURCE_DIR))
      : root_(std::move(root)), server_(out_, root_) {}

  std::vector<json> send(const json& msg) { return send_raw(msg.dump()); }
  std::vector<json> send_raw(const std::string& body) {
    exited_ = server_.handle_message(body);
    return take();
  }
  std::vector<json> take() {
    auto msgs = parse_frames(out_.str());
    out_.str("");
    return msgs;
  }
  json request(const std::string& method, json params) {
    json msg = {{"jsonrpc", "2.0"}, {"id", next_id_}, {"method", method}, {"params", std::move(params)}};
    auto msgs = send(msg);
    for (const json& m : msgs)
      if (m.contains("id") && m["id"] == next_id_) {
        ++next_id_;
        return m;
      }
    ADD_FAILURE() << "no response to " << method;
    return json();
  }
  std::vector<json> notify(const std::string& method, json params) {
    return send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  json initialize(json capabilities = json::object(), json init_options = nullptr) {
    json params = {{"processId", nullptr}, {"rootUri", path_to_uri(root_.string())},
                   {"capabilities", std::move(capabilities)}};
    if (!init_options.is_null()) params["initializationOptions"] = init_options;
    json r = request("initialize", params);
    notify("initialized", json::object());
    return r;
  }
  // didOpen/didChange → the publishDiagnostics among the replies.
  static json published(const std::vector<json>& msgs) {
    for (const json& m : msgs)
      if (m.value("method", "") == "textDocument/publishDiagnostics") return m["params"];
    return json();
  }
  json open(const std::string& uri, const std::string& text, int version = 1) {
    return published(notify("textDocument/didOpen",
                            {{"textDocument", {{"uri", uri}, {"languageId", "python"},
                                               {"version", version}, {"text", text}}}}));
  }
  Server& server() { return server_; }
  bool exited() const { return exited_; }

 private:
  std::filesystem::path root_;
  std::ostringstream out_;
  Server server_;
  int next_id_ = 1;
  bool exited_ = false;
};

json pos(uint32_t line, uint32_t ch) { return {{"line", line}, {"character", ch}}; }
json range(uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2) {
  return {{"start", pos(l1, c1)}, {"end", pos(l2, c2)}};
}

// (code, start line, start char, end line, end char) of LSP diagnostics.
using Key = std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint32_t>;
std::vector<Key> keys_of(const json& diags) {
  std::vector<Key> out;
  for (const json& d : diags)
    out.emplace_back(d["code"].get<std::string>(), d["range"]["start"]["line"], d["range"]["start"]["character"],
                     d["range"]["end"]["line"], d["range"]["end"]["character"]);
  return out;
}
// The same keys from `gpulint check`'s own analysis of `text` (settings of the fixture's dir).
std::vector<Key> expected_keys(const std::string& path, const std::string& text) {
  SourceFile src(path, text);
  ConfigResolver resolver(GPULINT_SOURCE_DIR, std::nullopt, {});
  FileReport rep = analyze_python(src, resolver.file_settings(path));
  std::vector<Key> out;
  for (const Diagnostic& d : rep.diagnostics) {
    LineCol a = src.utf16_position(d.start), b = src.utf16_position(d.end);
    out.emplace_back(d.code, a.line, a.column, b.line, b.column);
  }
  return out;
}

// Applies LSP TextEdits (all relative to `text`) the way a client does.
std::string apply_text_edits(const std::string& text, const json& edits) {
  SourceFile src("x.py", text);
  std::vector<std::tuple<uint32_t, uint32_t, std::string>> es;
  for (const json& e : edits)
    es.emplace_back(src.offset_from_utf16({e["range"]["start"]["line"], e["range"]["start"]["character"]}),
                    src.offset_from_utf16({e["range"]["end"]["line"], e["range"]["end"]["character"]}),
                    e["newText"].get<std::string>());
  std::sort(es.begin(), es.end(), [](auto& a, auto& b) { return std::get<0>(a) > std::get<0>(b); });
  std::string out = text;
  for (auto& [s, e, t] : es) out.replace(s, e - s, t);
  return out;
}

const std::string kMnist = "fixtures/demo/mnist_train.py";

}  // namespace

// --- framing ------------------------------------------------------------------------------------

TEST(LspTransport, ReadsMessagesWithLenientHeaders) {
  std::istringstream in(framed("{\"a\":1}") + "content-length: 7\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n{\"b\":2}");
  MessageReader r(in);
  ReadResult a = r.next();
  ASSERT_EQ(a.kind, ReadResult::Kind::Message);
  EXPECT_EQ(a.body, "{\"a\":1}");
  ReadResult b = r.next();
  ASSERT_EQ(b.kind, ReadResult::Kind::Message);
  EXPECT_EQ(b.body, "{\"b\":2}");
  ReadResult c = r.next();
  EXPECT_EQ(c.kind, ReadResult::Kind::Eof);
  EXPECT_EQ(c.error, "");
}

TEST(LspTransport, MalformedHeadersAreReportedAndReadingGoesOn) {
  std::istringstream in("Content-Length: abc\r\n\r\n" "Content-Type: x\r\n\r\n" "garbage line\r\n\r\n" +
                        framed("{}"));
  MessageReader r(in);
  ReadResult a = r.next();
  EXPECT_EQ(a.kind, ReadResult::Kind::BadHeader);
  EXPECT_NE(a.error.find("invalid Content-Length"), std::string::npos);
  ReadResult b = r.next();
  EXPECT_EQ(b.kind, ReadResult::Kind::BadHeader);
  EXPECT_EQ(b.error, "header block without Content-Length");
  ReadResult c = r.next();
  EXPECT_EQ(c.kind, ReadResult::Kind::BadHeader);
  EXPECT_NE(c.error.find("no `:`"), std::string::npos);
  ReadResult d = r.next();
  ASSERT_EQ(d.kind, ReadResult::Kind::Message);
  EXPECT_EQ(d.body, "{}");
}

TEST(LspTransport, TruncatedBodyAndOversizedBody) {
  std::istringstream in("Content-Length: 50\r\n\r\n{\"jsonrpc\":");
  MessageReader r(in);
  ReadResult a = r.next();
  EXPECT_EQ(a.kind, ReadResult::Kind::Eof);
  EXPECT_EQ(a.error, "truncated body: 11 of 50 bytes");

  std::istringstream big("Content-Length: 20\r\n\r\n01234567890123456789" + framed("{}"));
  MessageReader r2(big, 10);
  ReadResult b = r2.next();
  EXPECT_EQ(b.kind, ReadResult::Kind::BadHeader);
  EXPECT_NE(b.error.find("exceeds the limit"), std::string::npos);
  ReadResult c = r2.next();
  ASSERT_EQ(c.kind, ReadResult::Kind::Message);
  EXPECT_EQ(c.body, "{}");

  std::istringstream header_cut("Content-Length: 5\r\n");
  MessageReader r3(header_cut);
  ReadResult d = r3.next();
  EXPECT_EQ(d.kind, ReadResult::Kind::Eof);
  EXPECT_NE(d.error, "");
}

TEST(LspUri, RoundTripAndDecoding) {
  EXPECT_EQ(uri_to_path("file:///tmp/a%20b/c%C3%A9.py").value(), "/tmp/a b/cé.py");
  EXPECT_EQ(uri_to_path("file://localhost/x.py").value(), "/x.py");
  EXPECT_FALSE(uri_to_path("untitled:Untitled-1"));
  EXPECT_FALSE(uri_to_path("file:///bad%zz"));
  EXPECT_FALSE(uri_to_path("file:///nul%00"));
  EXPECT_FALSE(uri_to_path("file://otherhost/x.py"));
  EXPECT_EQ(path_to_uri("/tmp/a b/cé.py"), "file:///tmp/a%20b/c%C3%A9.py");
  EXPECT_EQ(uri_to_path(path_to_uri("/w/[x]#1?.py")).value(), "/w/[x]#1?.py");
}

// --- JSON-RPC rules and lifecycle --------------------------------------------------------------

TEST(LspProtocol, ErrorsForBadMessages) {
  Session s;
  auto r = s.send_raw("{not json");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]["error"]["code"], error_code::kParseError);
  EXPECT_TRUE(r[0]["id"].is_null());
  r = s.send_raw("[1,2]");
  EXPECT_EQ(r.at(0)["error"]["code"], error_code::kInvalidRequest);
  r = s.send_raw("42");
  EXPECT_EQ(r.at(0)["error"]["code"], error_code::kInvalidRequest);
  r = s.send_raw(R"({"id":1,"method":"initialize","params":{}})");  // no jsonrpc
  EXPECT_EQ(r.at(0)["error"]["code"], error_code::kInvalidRequest);
  EXPECT_EQ(r.at(0)["id"], 1);
  r = s.send_raw(R"({"jsonrpc":"2.0","id":{"x":1},"method":"initialize"})");
  EXPECT_EQ(r.at(0)["error"]["code"], error_code::kInvalidRequest);
  EXPECT_TRUE(r.at(0)["id"].is_null());
  r = s.send_raw(R"({"jsonrpc":"2.0","id":3,"method":7})");
  EXPECT_EQ(r.at(0)["error"]["code"], error_code::kInvalidRequest);
  r = s.send_raw(R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":5})");
  EXPECT_EQ(r.at(0)["error"]["code"], error_code::kInvalidRequest);
  // A response to a server request is accepted silently.
  EXPECT_TRUE(s.send_raw(R"({"jsonrpc":"2.0","id":"gpulint-1","result":null})").empty());
  EXPECT_FALSE(s.exited());
}

TEST(LspProtocol, LifecycleOrder) {
  Session s;
  // Before initialize: requests get -32002, notifications are dropped.
  json r = s.request("textDocument/hover", {{"textDocument", {{"uri", "file:///x.py"}}}, {"position", pos(0, 0)}});
  EXPECT_EQ(r["error"]["code"], error_code::kServerNotInitialized);
  EXPECT_TRUE(s.open("file:///x.py", "import torch\n").is_null());
  EXPECT_EQ(s.server().document("file:///x.py"), nullptr);

  json init = s.initialize();
  const json& caps = init["result"]["capabilities"];
  EXPECT_EQ(caps["textDocumentSync"]["change"], 2);
  EXPECT_EQ(caps["hoverProvider"], true);
  EXPECT_EQ(caps["codeActionProvider"]["codeActionKinds"], json::array({"quickfix", "source.fixAll.gpulint"}));
  EXPECT_FALSE(caps.contains("diagnosticProvider"));  // the client did not offer pull
  EXPECT_EQ(s.request("initialize", json::object())["error"]["code"], error_code::kInvalidRequest);

  EXPECT_EQ(s.request("workspace/symbol", {{"query", ""}})["error"]["code"], error_code::kMethodNotFound);
  EXPECT_EQ(s.request("$/unknown", json::object())["error"]["code"], error_code::kMethodNotFound);
  EXPECT_TRUE(s.notify("workspace/unknownNotification", json::object()).empty());
  EXPECT_TRUE(s.notify("$/cancelRequest", {{"id", 99}}).empty());
  // Bad params: -32602, and the server keeps going.
  EXPECT_EQ(s.request("textDocument/hover", {{"textDocument", {{"uri", 5}}}, {"position", pos(0, 0)}})["error"]["code"],
            error_code::kInvalidParams);
  EXPECT_EQ(s.request("textDocument/codeAction", {{"textDocument", {{"uri", "file:///x.py"}}}})["error"]["code"],
            error_code::kInvalidParams);
  // A bad notification is logged (never answered as if it were a request).
  auto logged = s.notify("textDocument/didOpen", {{"textDocument", 3}});
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(logged[0]["method"], "window/logMessage");

  json sd = s.request("shutdown", nullptr);
  EXPECT_TRUE(sd.contains("result"));
  EXPECT_TRUE(sd["result"].is_null());
  EXPECT_EQ(s.request("textDocument/hover", {{"textDocument", {{"uri", "file:///x.py"}}}, {"position", pos(0, 0)}})["error"]["code"],
            error_code::kInvalidRequest);
  EXPECT_TRUE(s.open("file:///y.py", "import torch\n").is_null());  // ignored after shutdown
  s.notify("exit", nullptr);
  EXPECT_TRUE(s.exited());
  EXPECT_EQ(s.server().exit_code(), 0);
}

TEST(LspProtocol, RunLoopExitCodes) {
  auto run = [](const std::string& input, std::string* output) {
    std::istringstream in(input);
    std::ostringstream out;
    Server server(out, GPULINT_SOURCE_DIR);
    int rc = server.run(in);
    *output = out.str();
    return rc;
  };
  std::string out;
  std::string init = framed(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})");
  std::string shutdown = framed(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})");
  std::string exit = framed(R"({"jsonrpc":"2.0","method":"exit"})");
  EXPECT_EQ(run(init + shutdown + exit + framed("{}"), &out), 0);
  auto msgs = parse_frames(out);
  ASSERT_EQ(msgs.size(), 2u);  // nothing is read after exit
  EXPECT_EQ(run(init + exit, &out), 1);
  EXPECT_EQ(run(init, &out), 1);           // the stream ended without shutdown
  EXPECT_EQ(run(init + shutdown, &out), 0);
  // Bad headers and truncated input: answered, then the end of the stream.
  EXPECT_EQ(run("Content-Length: x\r\n\r\n" + init + "Content-Length: 99\r\n\r\n{", &out), 1);
  msgs = parse_frames(out);
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(msgs[0]["error"]["code"], error_code::kParseError);
  EXPECT_EQ(msgs[1]["id"], 1);
}

// --- diagnostics ----------------------------------------------------------------------------------

TEST(LspDiagnostics, SameAsCheckOnOpen) {
  Session s;
  s.initialize();
  std::string path = std::string(GPULINT_SOURCE_DIR) + "/" + kMnist;
  std::string text = fixture_text(kMnist);
  json pub = s.open(path_to_uri(path), text, 7);
  ASSERT_FALSE(pub.is_null());
  EXPECT_EQ(pub["version"], 7);
  auto got = keys_of(pub["diagnostics"]);
  EXPECT_EQ(got, expected_keys(path, text));
  EXPECT_GE(got.size(), 5u);
  const json& d0 = pub["diagnostics"][0];
  EXPECT_EQ(d0["source"], "gpulint");
  EXPECT_EQ(d0["codeDescription"]["href"], rule_url(d0["code"].get<std::string>()));
}

TEST(LspDiagnostics, IncrementalEditsMatchAFreshParseAndAnalysis) {
  Session s;
  s.initialize();
  std::string path = std::string(GPULINT_SOURCE_DIR) + "/" + kMnist;
  std::string uri = path_to_uri(path);
  std::string text = fixture_text(kMnist);
  s.open(uri, text);
  // Insert `, pin_memory=True` into the first DataLoader call: its DL002 goes away.
  SourceFile src(path, text);
  std::size_t at = text.find("shuffle=True)");
  ASSERT_NE(at, std::string::npos);
  LineCol p = src.utf16_position(static_cast<uint32_t>(at + std::string("shuffle=True").size()));
  json pub = Session::published(s.notify(
      "textDocument/didChange",
      {{"textDocument", {{"uri", uri}, {"version", 2}}},
       {"contentChanges", json::array({{{"range", range(p.line, p.column, p.line, p.column)},
                                        {"text", ", pin_memory=True"}}})}}));
  ASSERT_FALSE(pub.is_null());
  EXPECT_EQ(pub["version"], 2);
  Document* doc = s.server().document(uri);
  ASSERT_NE(doc, nullptr);
  EXPECT_NE(doc->text().find("shuffle=True, pin_memory=True)"), std::string::npos);
  EXPECT_EQ(keys_of(pub["diagnostics"]), expected_keys(path, doc->text()));
  EXPECT_EQ(doc->incremental_parses(), 1u);

  // Random edits (multi-byte characters, line joins and splits, several changes per
  // notification): after each, the text is what the edits say, the re-parsed tree equals a
  // fresh parse, and the diagnostics equal `check`'s.
  std::mt19937 rng(12345);
  const std::vector<std::string> inserts = {"x", "\n", "é", "😀", "  ", "(", ")", "torch", "\n    ", "#", "\"", ""};
  std::string mirror = doc->text();
  for (int round = 0; round < 150; ++round) {
    json changes = json::array();
    int n = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < n; ++k) {
      SourceFile cur(path, mirror);
      uint32_t a = static_cast<uint32_t>(rng() % (mirror.size() + 1));
      uint32_t b = std::min<uint32_t>(static_cast<uint32_t>(mirror.size()), a + static_cast<uint32_t>(rng() % 12));
      // Keep edits on character boundaries (what an editor sends).
      auto cont = [&](uint32_t o) { return o < mirror.size() && (static_cast<unsigned char>(mirror[o]) & 0xC0) == 0x80; };
      while (cont(a)) --a;
      while (cont(b)) ++b;
      std::string ins = inserts[rng() % inserts.size()];
      LineCol pa = cur.utf16_position(a), pb = cur.utf16_position(b);
      changes.push_back({{"range", range(pa.line, pa.column, pb.line, pb.column)}, {"text", ins}});
      mirror.replace(a, b - a, ins);
    }
    json p2 = Session::published(s.notify(
        "textDocument/didChange",
        {{"textDocument", {{"uri", uri}, {"version", 3 + round}}}, {"contentChanges", changes}}));
    ASSERT_EQ(doc->text(), mirror) << "round " << round;
    ASSERT_EQ(keys_of(p2["diagnostics"]), expected_keys(path, mirror)) << "round " << round;
    python::Tree fresh = python::Tree::parse(mirror);
    char* a = ts_node_string(fresh.root());
    char* b = ts_node_string(doc->tree()->root());
    ASSERT_STREQ(a, b) << "round " << round;
    free(a);
    free(b);
  }
  EXPECT_EQ(doc->incremental_parses(), 151u);

  // A full-text change replaces everything (and parses from scratch).
  s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 1000}}},
                                      {"contentChanges", json::array({{{"text", text}}})}});
  EXPECT_EQ(doc->text(), text);
  // Out-of-range positions are clamped, never a crash.
  json clamp = Session::published(s.notify(
      "textDocument/didChange",
      {{"textDocument", {{"uri", uri}, {"version", 1001}}},
       {"contentChanges", json::array({{{"range", range(100000, 5, 100000, 9)}, {"text", "\n# end\n"}}})}}));
  EXPECT_EQ(doc->text(), text + "\n# end\n");
  EXPECT_EQ(keys_of(clamp["diagnostics"]), expected_keys(path, doc->text()));
}

TEST(LspDiagnostics, CloseClearsAndNonPythonIsIgnored) {
  Session s;
  s.initialize();
  std::string uri = "file:///tmp/gpulint-lsp-close.py";
  json pub = s.open(uri, "import torch\nfrom torch.utils.data import DataLoader\nl = DataLoader(ds)\n");
  EXPECT_FALSE(pub["diagnostics"].empty());
  json closed = Session::published(s.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}}));
  EXPECT_TRUE(closed["diagnostics"].empty());
  EXPECT_EQ(s.server().document(uri), nullptr);
  auto r = s.notify("textDocument/didOpen", {{"textDocument", {{"uri", "file:///tmp/notes.md"}, {"languageId", "markdown"},
                                                               {"version", 1}, {"text", "import torch"}}}});
  EXPECT_TRUE(r.empty());
  // A change to a document never opened is ignored.
  EXPECT_TRUE(s.notify("textDocument/didChange", {{"textDocument", {{"uri", "file:///nope.py"}, {"version", 2}}},
                                                  {"contentChanges", json::array({{{"text", "x"}}})}}).empty());
}

TEST(LspDiagnostics, PullModeWhenTheClientSupportsIt) {
  Session s;
  json init = s.initialize({{"textDocument", {{"diagnostic", {{"dynamicRegistration", false}}}}}});
  EXPECT_TRUE(init["result"]["capabilities"].contains("diagnosticProvider"));
  std::string path = std::string(GPULINT_SOURCE_DIR) + "/" + kMnist;
  std::string text = fixture_text(kMnist);
  EXPECT_TRUE(s.open(path_to_uri(path), text).is_null());  // nothing pushed
  json r = s.request("textDocument/diagnostic", {{"textDocument", {{"uri", path_to_uri(path)}}}});
  EXPECT_EQ(r["result"]["kind"], "full");
  EXPECT_EQ(keys_of(r["result"]["items"]), expected_keys(path, text));
}

// --- code actions and hover ----------------------------------------------------------------------

TEST(LspCodeActions, QuickfixNoqaAndFixAll) {
  Session s;
  s.initialize();
  std::string path = std::string(GPULINT_SOURCE_DIR) + "/" + kMnist;
  std::string uri = path_to_uri(path);
  std::string text = fixture_text(kMnist);
  json pub = s.open(uri, text);
  json dl002;
  for (const json& d : pub["diagnostics"])
    if (d["code"] == "DL002") { dl002 = d; break; }
  ASSERT_FALSE(dl002.is_null());
  json r = s.request("textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", dl002["range"]},
                                                 {"context", {{"diagnostics", json::array({dl002})}}}});
  const json& actions = r["result"];
  json fix, noqa;
  for (const json& a : actions) {
    if (a["kind"] != "quickfix" || a["diagnostics"][0]["code"] != "DL002") continue;
    if (a["title"].get<std::string>().find("noqa") != std::string::npos) noqa = a;
    else fix = a;
  }
  ASSERT_FALSE(fix.is_null()) << actions.dump(2);
  ASSERT_FALSE(noqa.is_null());
  EXPECT_EQ(fix["isPreferred"], true);
  for (const json& a : actions) EXPECT_NE(a["kind"], "source.fixAll.gpulint");  // not asked for

  uint32_t line = dl002["range"]["start"]["line"];
  auto count_on_line = [&](const json& diags, const std::string& code) {
    int n = 0;
    for (const json& d : diags) n += d["code"] == code && d["range"]["start"]["line"] == line;
    return n;
  };
  ASSERT_EQ(count_on_line(pub["diagnostics"], "DL002"), 1);
  // The quickfix removes the diagnostic and is the rule's own fix edit.
  std::string fixed = apply_text_edits(text, fix["edit"]["changes"][uri]);
  bool still = false;
  for (auto& k : expected_keys(path, fixed)) still |= std::get<0>(k) == "DL002" && std::get<1>(k) == line;
  EXPECT_FALSE(still);
  // The noqa action suppresses it: the line already has `# expect:` comment, so a noqa comment
  // is appended after it.
  std::string suppressed = apply_text_edits(text, noqa["edit"]["changes"][uri]);
  SourceFile ssrc(path, suppressed);
  EXPECT_NE(std::string(ssrc.line_text(line)).find("# noqa: DL002"), std::string::npos);
  bool left = false;
  for (auto& k : expected_keys(path, suppressed)) left |= std::get<0>(k) == "DL002" && std::get<1>(k) == line;
  EXPECT_FALSE(left);
  // The other code on that line (DL001) is still reported; a second noqa extends the list.
  s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                      {"contentChanges", json::array({{{"text", suppressed}}})}});
  json dl001;
  json items = s.request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}})["result"]["items"];
  for (const json& d : items)
    if (d["code"] == "DL001" && d["range"]["start"]["line"] == line) dl001 = d;
  ASSERT_FALSE(dl001.is_null()) << items.dump();
  json r2 = s.request("textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", dl001["range"]},
                                                  {"context", {{"diagnostics", json::array()}, {"only", {"quickfix"}}}}});
  json noqa2;
  for (const json& a : r2["result"])
    if (a["title"] == "Add `# noqa: DL001` (suppress on this line)") noqa2 = a;
  ASSERT_FALSE(noqa2.is_null());
  std::string both = apply_text_edits(suppressed, noqa2["edit"]["changes"][uri]);
  EXPECT_NE(both.find("# noqa: DL002, DL001"), std::string::npos);

  // source.fixAll.gpulint = `check --fix` on the same text (safe fixes only by default).
  s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 3}}},
                                      {"contentChanges", json::array({{{"text", text}}})}});
  json r3 = s.request("textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", range(0, 0, 0, 0)},
                                                  {"context", {{"diagnostics", json::array()}, {"only", {"source.fixAll"}}}}});
  ASSERT_EQ(r3["result"].size(), 1u) << r3.dump(2);
  EXPECT_EQ(r3["result"][0]["kind"], "source.fixAll.gpulint");
  std::string all = apply_text_edits(text, r3["result"][0]["edit"]["changes"][uri]);
  SourceFile src(path, text);
  ConfigResolver resolver(GPULINT_SOURCE_DIR, std::nullopt, {});
  FileSettings fs = resolver.file_settings(path);
  FixResult want = fix_source(src, analyze_python(src, fs), false,
                              [&](const SourceFile& x) { return analyze_python(x, fs); });
  ASSERT_TRUE(want.changed);
  EXPECT_EQ(all, want.text);
}

TEST(LspHover, RuleDocumentationOverADiagnostic) {
  Session s;
  s.initialize();
  std::string path = std::string(GPULINT_SOURCE_DIR) + "/" + kMnist;
  json pub = s.open(path_to_uri(path), fixture_text(kMnist));
  const json& d = pub["diagnostics"][0];
  json r = s.request("textDocument/hover", {{"textDocument", {{"uri", path_to_uri(path)}}}, {"position", d["range"]["start"]}});
  std::string code = d["code"];
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  EXPECT_EQ(r["result"]["contents"]["kind"], "markdown");
  EXPECT_EQ(r["result"]["contents"]["value"].get<std::string>().rfind("# " + rule_name(code) + " (" + code + ")", 0), 0u);
  json none = s.request("textDocument/hover", {{"textDocument", {{"uri", path_to_uri(path)}}}, {"position", pos(0, 0)}});
  EXPECT_TRUE(none["result"].is_null());
}

// --- configuration -----------------------------------------------------------------------------

TEST(LspConfiguration, WorkspaceConfigAndDidChangeConfiguration) {
  TempDir dir;
  dir.write("pyproject.toml", "[tool.gpulint]\nignore = [\"DL002\"]\n");
  std::string text = fixture_text(kMnist);
  auto file = dir.write("train.py", text);
  Session s(dir.path());
  s.initialize();
  auto codes = [](const json& pub) {
    std::set<std::string> c;
    for (const json& d : pub["diagnostics"]) c.insert(d["code"].get<std::string>());
    return c;
  };
  std::string uri = path_to_uri(file.string());
  json pub = s.open(uri, text);
  EXPECT_FALSE(codes(pub).count("DL002"));
  EXPECT_TRUE(codes(pub).count("DL001"));
  // Client settings are layered on top, as command-line flags are.
  auto msgs = s.notify("workspace/didChangeConfiguration", {{"settings", {{"gpulint", {{"select", {"MEM"}}}}}}});
  EXPECT_EQ(codes(Session::published(msgs)), std::set<std::string>{"MEM001"});
  // An unknown selector is reported to the user, not silently ignored.
  msgs = s.notify("workspace/didChangeConfiguration", {{"settings", {{"gpulint", {{"select", {"NOPE1"}}}}}}});
  bool shown = false;
  for (const json& m : msgs) shown |= m.value("method", "") == "window/showMessage" &&
                                     m["params"]["message"] == "gpulint: " + unknown_selector_message("NOPE1");
  EXPECT_TRUE(shown);
  // Saving an edited configuration file reloads it; an invalid one is shown, and no
  // diagnostics are published for the files it governs.
  s.notify("workspace/didChangeConfiguration", {{"settings", {{"gpulint", {{"select", json::array()}}}}}});
  dir.write("pyproject.toml", "[tool.gpulint]\nignore = [\"DL001\"\n");
  msgs = s.notify("textDocument/didSave", {{"textDocument", {{"uri", path_to_uri((dir / "pyproject.toml").string())}}}});
  bool error_shown = false;
  for (const json& m : msgs) error_shown |= m.value("method", "") == "window/showMessage" && m["params"]["type"] == 1;
  EXPECT_TRUE(error_shown);
  EXPECT_TRUE(Session::published(msgs)["diagnostics"].empty());
  dir.write("pyproject.toml", "[tool.gpulint]\nignore = [\"DL001\"]\n");
  msgs = s.notify("workspace/didChangeWatchedFiles",
                  {{"changes", json::array({{{"uri", path_to_uri((dir / "pyproject.toml").string())}, {"type", 2}}})}});
  EXPECT_FALSE(codes(Session::published(msgs)).count("DL001"));
  EXPECT_TRUE(codes(Session::published(msgs)).count("DL002"));
}

TEST(LspProtocol, BurstOfChangesIsLintedOnce) {
  // run(): the diagnostics of didChange wait while more input is buffered; the burst's last
  // version is published once, with the diagnostics of the final text.
  std::string uri = "file:///tmp/gpulint-burst.py";
  std::string text = "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds)\n";
  std::string input = framed(json({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                                   {"params", {{"capabilities", json::object()}}}}).dump());
  input += framed(json({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                        {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}}).dump());
  std::string typed = ", num_workers=4, pin_memory=True";
  uint32_t col = static_cast<uint32_t>(std::string("loader = DataLoader(ds").size());
  for (std::size_t i = 0; i < typed.size(); ++i) {
    json change = {{"range", range(2, col + static_cast<uint32_t>(i), 2, col + static_cast<uint32_t>(i))},
                   {"text", typed.substr(i, 1)}};
    input += framed(json({{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"},
                          {"params", {{"textDocument", {{"uri", uri}, {"version", 2 + i}}},
                                      {"contentChanges", json::array({change})}}}}).dump());
  }
  std::istringstream in(input);
  std::ostringstream out;
  Server server(out, GPULINT_SOURCE_DIR);
  EXPECT_EQ(server.run(in), 1);
  std::vector<int64_t> versions;
  json last;
  for (const json& m : parse_frames(out.str()))
    if (m.value("method", "") == "textDocument/publishDiagnostics") {
      versions.push_back(m["params"]["version"]);
      last = m["params"];
    }
  EXPECT_EQ(versions, (std::vector<int64_t>{1, static_cast<int64_t>(1 + typed.size())}));
  EXPECT_TRUE(last["diagnostics"].empty()) << last.dump();
}
