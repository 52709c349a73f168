// The correctness oracle of the LSP server's incremental re-lint: random edits (what typing
// does: characters, lines, comments, indentation, and edits aimed at what the analysis reads
// file-wide — imports, module constants, function signatures, call arguments, class
// attributes) are sent as ranged didChange notifications to an in-memory Server, and after
// every edit the server's report (diagnostics, their fixes, suppression count, syntax-error
// note) must equal a from-scratch analyze_python of the same text with the settings
// `gpulint check` would use. Documents: the LSP latency benchmark's generated training script
// (bench/lsp_document.h) and every fixture under fixtures/python.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "analyzer/config.h"
#include "analyzer/lsp/relint.h"
#include "analyzer/lsp/server.h"
#include "analyzer/python/syntax.h"
#include "bench/lsp_document.h"
#include "test_util.h"

using nlohmann::json;
using namespace gpulint;
using namespace gpulint::lsp;

namespace {

namespace fs = std::filesystem;

// Everything of a report that reaches the user, one line per item, so a mismatch prints the
// first differing line.
std::string describe(const FileReport& r) {
  std::ostringstream o;
  if (r.syntax_error) o << "syntax_error " << r.syntax_error->offset << " " << r.syntax_error->error_count << "\n";
  if (r.not_analysed) o << "not_analysed " << *r.not_analysed << "\n";
  o << "suppressed " << r.suppressed << "\n";
  for (const Diagnostic& d : r.diagnostics) {
    o << d.code << " " << d.start << "-" << d.end << " " << static_cast<int>(d.severity) << " "
      << static_cast<int>(d.confidence) << " " << d.message;
    if (d.fix) {
      o << " | fix " << static_cast<int>(d.fix->applicability) << " " << d.fix->message;
      for (const Edit& e : d.fix->edits) o << " [" << e.start << "," << e.end << ")=" << json(e.content).dump();
    }
    o << "\n";
  }
  return o.str();
}

// One edit in byte offsets of the current text.
struct ByteEdit {
  uint32_t start = 0, end = 0;
  std::string text;
  std::string kind;
};

class Editor {
 public:
  Editor(std::string text, unsigned seed) : text_(std::move(text)), rng_(seed) {}
  const std::string& text() const { return text_; }

  // A random edit of the current text (not yet applied).
  ByteEdit next() {
    if (last_ && pick(10) < 4) {  // undo the previous edit, as typing then deleting does
      ByteEdit u{last_->start, static_cast<uint32_t>(last_->start + last_->text.size()), last_removed_, "undo"};
      return u;
    }
    switch (pick(13)) {
      case 0: {  // a character typed inside a call's parentheses (the benchmark's first kind)
        auto l = line_with("(");
        if (!l) break;
        uint32_t at = static_cast<uint32_t>(text_.find('(', l->first)) + 1;
        return {at, at, std::string(1, "x1_, )"[pick(6)]), "char-in-call"};
      }
      case 1: {  // a statement line inserted above a line, with its indentation
        auto l = any_line();
        std::string ind = indent(l);
        return {l->first, l->first, ind + (pick(2) ? "tmp = x.sum()\n" : "loss = model(x).sum()\n"), "statement-line"};
      }
      case 2: {  // a comment typed at a line's end, sometimes a suppression
        auto l = any_line();
        static const char* kComments[] = {"  # todo", "  # noqa", "  # noqa: DL001", "  # noqa: DEV002, MEM001", "#"};
        return {l->second, l->second, kComments[pick(5)], "comment"};
      }
      case 3: {  // random characters anywhere
        static const char* kPieces[] = {"x", " ", "\n", "(", ")", ":", "#", "\"", "'", "    ", "0", ",", "=", "\\", "é"};
        uint32_t at = boundary(pick(static_cast<uint32_t>(text_.size()) + 1));
        std::string s;
        for (uint32_t i = 0, n = 1 + pick(3); i < n; ++i) s += kPieces[pick(15)];
        return {at, at, s, "insert"};
      }
      case 4: {  // random characters deleted
        uint32_t a = boundary(pick(static_cast<uint32_t>(text_.size()) + 1));
        uint32_t b = boundary(std::min<uint32_t>(static_cast<uint32_t>(text_.size()), a + 1 + pick(12)));
        return {a, b, "", "delete"};
      }
      case 5: {  // a whole line deleted or duplicated
        auto l = any_line();
        uint32_t e = std::min<uint32_t>(l->second + 1, static_cast<uint32_t>(text_.size()));
        if (pick(2)) return {l->first, e, "", "line-delete"};
        return {l->first, l->first, text_.substr(l->first, e - l->first), "line-duplicate"};
      }
      case 6: {  // indentation changed
        auto l = any_line();
        if (pick(2) && text_.compare(l->first, 4, "    ") == 0) return {l->first, l->first + 4, "", "dedent"};
        return {l->first, l->first, "    ", "indent"};
      }
      case 7: {  // an import removed, renamed or added
        auto l = line_starting({"import ", "from "});
        if (!l || pick(4) == 0) return {0, 0, pick(2) ? "import torch\n" : "from torch.utils.data import DataLoader\n", "import-add"};
        if (pick(2)) return {l->first, std::min<uint32_t>(l->second + 1, static_cast<uint32_t>(text_.size())), "", "import-delete"};
        std::string_view line(text_.data() + l->first, l->second - l->first);
        std::size_t t = line.find("torch");
        if (t == std::string_view::npos) return {l->second, l->second, " as zz", "import-alias"};
        return {static_cast<uint32_t>(l->first + t + 5), static_cast<uint32_t>(l->first + t + 5), pick(2) ? "x" : ".utils", "import-rename"};
      }
      case 8: {  // a module constant's value changed (or a new one)
        auto l = module_constant();
        static const char* kValues[] = {"0", "4", "True", "False", "None", "\"cuda\"", "\"cpu\"", "torch.device(\"cuda\")"};
        if (!l) return {0, 0, std::string("NUM_WORKERS = ") + kValues[pick(8)] + "\n", "constant-add"};
        uint32_t eq = static_cast<uint32_t>(text_.find(" = ", l->first)) + 3;
        return {eq, l->second, kValues[pick(8)], "constant-value"};
      }
      case 9: {  // a function signature: a parameter added or the first one removed
        auto l = line_containing_prefix("def ");
        if (!l) break;
        std::string_view line(text_.data() + l->first, l->second - l->first);
        std::size_t open = line.find('('), close = line.rfind(')');
        if (open == std::string_view::npos || close == std::string_view::npos || close < open) break;
        if (pick(2)) return {static_cast<uint32_t>(l->first + close), static_cast<uint32_t>(l->first + close), pick(2) ? ", extra=1" : ", device=\"cpu\"", "signature-add"};
        std::size_t comma = line.find(',', open);
        uint32_t e = static_cast<uint32_t>(l->first + (comma == std::string_view::npos || comma > close ? close : comma + 1));
        return {static_cast<uint32_t>(l->first + open + 1), e, "", "signature-remove"};
      }
      case 10: {  // a call's arguments: one added, or the first one removed
        auto l = line_with("(");
        if (!l) break;
        uint32_t open = static_cast<uint32_t>(text_.find('(', l->first));
        static const char* kArgs[] = {"num_workers=0, ", "pin_memory=True, ", "device, ", "num_workers=4, ", "args, "};
        if (pick(2)) return {open + 1, open + 1, kArgs[pick(5)], "argument-add"};
        std::string_view rest(text_.data() + open, l->second - open);
        std::size_t stop = rest.find_first_of(",)");
        if (stop == std::string_view::npos) break;
        return {open + 1, static_cast<uint32_t>(open + stop + (rest[stop] == ',' ? 1 : 0)), "", "argument-remove"};
      }
      case 11: {  // a class attribute (self.x = ...) renamed or its value replaced
        auto l = line_with("self.");
        if (!l) break;
        uint32_t at = static_cast<uint32_t>(text_.find("self.", l->first)) + 5;
        if (pick(2)) return {at, at, "z", "attribute-rename"};
        std::size_t eq = text_.find(" = ", at);
        if (eq == std::string::npos || eq > l->second) break;
        static const char* kValues[] = {"None", "torch.zeros(3).cuda()", "nn.Linear(2, 2)", "DataLoader(ds, batch_size=2)"};
        return {static_cast<uint32_t>(eq + 3), l->second, kValues[pick(4)], "attribute-value"};
      }
      default:
        break;
    }
    uint32_t at = boundary(pick(static_cast<uint32_t>(text_.size()) + 1));
    return {at, at, "x", "insert"};
  }

  // Applies `e` to the text; remembers it for an undo.
  void apply(const ByteEdit& e) {
    last_removed_ = text_.substr(e.start, e.end - e.start);
    text_.replace(e.start, e.end - e.start, e.text);
    last_ = e;
    if (e.kind == "undo") last_.reset();
  }

  // The LSP position (line, UTF-16 column) of a byte offset of the current text.
  json position(uint32_t off) const {
    uint32_t line = 0, line_start = 0;
    for (uint32_t i = 0; i < off; ++i)
      if (text_[i] == '\n') ++line, line_start = i + 1;
    uint32_t units = 0;
    for (uint32_t i = line_start; i < off;) {
      unsigned char c = static_cast<unsigned char>(text_[i]);
      uint32_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
      units += n == 4 ? 2 : 1;
      i += n;
    }
    return {{"line", line}, {"character", units}};
  }

 private:
  using Line = std::pair<uint32_t, uint32_t>;  // [start, end) without the '\n'
  uint32_t pick(uint32_t n) { return n == 0 ? 0 : static_cast<uint32_t>(rng_() % n); }
  // The offset moved back to a character boundary, never between "\r" and "\n" (an LSP
  // position cannot name that point).
  uint32_t boundary(uint32_t off) const {
    while (off > 0 && off < text_.size() && (static_cast<unsigned char>(text_[off]) & 0xC0) == 0x80) --off;
    if (off > 0 && off < text_.size() && text_[off] == '\n' && text_[off - 1] == '\r') --off;
    return off;
  }
  std::vector<Line> lines() const {
    std::vector<Line> out;
    uint32_t s = 0;
    for (uint32_t i = 0; i <= text_.size(); ++i)
      if (i == text_.size() || text_[i] == '\n') {
        uint32_t e = i;
        if (e > s && text_[e - 1] == '\r') --e;
        if (i < text_.size() || s < i) out.emplace_back(s, e);
        s = i + 1;
      }
    if (out.empty()) out.emplace_back(0, 0);
    return out;
  }
  std::optional<Line> choose(const std::vector<Line>& ls) {
    if (ls.empty()) return std::nullopt;
    return ls[pick(static_cast<uint32_t>(ls.size()))];
  }
  std::optional<Line> any_line() { return choose(lines()); }
  template <class Pred>
  std::optional<Line> line_where(Pred p) {
    std::vector<Line> ls;
    for (const Line& l : lines())
      if (p(std::string_view(text_.data() + l.first, l.second - l.first))) ls.push_back(l);
    return choose(ls);
  }
  std::optional<Line> line_with(std::string_view needle) {
    return line_where([&](std::string_view l) { return l.find(needle) != std::string_view::npos; });
  }
  std::optional<Line> line_starting(std::initializer_list<std::string_view> prefixes) {
    return line_where([&](std::string_view l) {
      for (auto p : prefixes)
        if (l.substr(0, p.size()) == p) return true;
      return false;
    });
  }
  std::optional<Line> line_containing_prefix(std::string_view p) {  // after indentation
    return line_where([&](std::string_view l) {
      std::size_t i = l.find_first_not_of(' ');
      return i != std::string_view::npos && l.substr(i, p.size()) == p;
    });
  }
  std::optional<Line> module_constant() {
    return line_where([](std::string_view l) {
      std::size_t eq = l.find(" = ");
      if (eq == std::string_view::npos || eq == 0) return false;
      for (std::size_t i = 0; i < eq; ++i)
        if (!(std::isupper(static_cast<unsigned char>(l[i])) || l[i] == '_' || std::isdigit(static_cast<unsigned char>(l[i]))))
          return false;
      return true;
    });
  }
  std::string indent(const std::optional<Line>& l) const {
    std::string_view line(text_.data() + l->first, l->second - l->first);
    return std::string(line.substr(0, std::min(line.find_first_not_of(" \t"), line.size())));
  }

  std::string text_;
  std::mt19937 rng_;
  std::optional<ByteEdit> last_;
  std::string last_removed_;
};

// Opens `path` (its real location, so configuration discovery is the same as `check`'s) in an
// in-memory server, applies `edits` random edits, and compares the server's report after each
// one with a from-scratch analysis. Returns the number of edits checked.
int replay(const fs::path& path, const std::string& text, unsigned seed, int edits) {
  std::ostringstream out;
  Server server(out, fs::path(GPULINT_SOURCE_DIR));
  server.handle_message(json({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                              {"params", {{"processId", nullptr},
                                          {"rootUri", path_to_uri(GPULINT_SOURCE_DIR)},
                                          {"capabilities", json::object()}}}})
                            .dump());
  server.handle_message(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  const std::string uri = path_to_uri(path.string());
  server.handle_message(json({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                              {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"},
                                                            {"version", 1}, {"text", text}}}}}})
                            .dump());
  ConfigResolver resolver(GPULINT_SOURCE_DIR, std::nullopt, {});
  FileSettings settings = resolver.file_settings(path);
  Editor editor(text, seed);
  std::string history;
  for (int i = 0; i < edits; ++i) {
    ByteEdit e = editor.next();
    json change = {{"range", {{"start", editor.position(e.start)}, {"end", editor.position(e.end)}}}, {"text", e.text}};
    editor.apply(e);
    history += "  " + e.kind + " " + change.dump() + "\n";
    server.handle_message(json({{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"},
                                {"params", {{"textDocument", {{"uri", uri}, {"version", i + 2}}},
                                            {"contentChanges", json::array({change})}}}})
                              .dump());
    out.str("");
    const Document* doc = server.document(uri);
    const FileReport* got = server.report(uri);
    if (!doc || !got) {
      ADD_FAILURE() << path << ": the document is not open";
      return i;
    }
    if (doc->text() != editor.text()) {
      ADD_FAILURE() << path << ": the server's text differs from the client's after\n" << history;
      return i;
    }
    FileReport want = analyze_python(SourceFile(path.string(), editor.text()), settings);
    std::string w = describe(want), g = describe(*got);
    if (w != g) {
      ADD_FAILURE() << path << " (seed " << seed << "): after edit " << i << " the server's report differs from a "
                    << "from-scratch analysis.\nEdits:\n" << history << "From scratch:\n" << w << "Server:\n" << g
                    << "Text:\n" << editor.text();
      return i;
    }
  }
  return edits;
}

TEST(LspIncremental, BenchmarkDocumentMatchesFromScratchAfterRandomEdits) {
  // The benchmark's script, shortened (Debug builds analyse it every edit, twice).
  std::string text = gpulint::bench::make_training_script(200);
  fs::path path = fs::path(GPULINT_SOURCE_DIR) / "bench" / "train_long.py";
  int checked = 0;
  for (unsigned seed : {1u, 2u}) checked += replay(path, text, seed, 20);
  EXPECT_EQ(checked, 40);
}

TEST(LspIncremental, FixturesMatchFromScratchAfterRandomEdits) {
  // A few edits per file keep the test at a few seconds in Debug; the seed differs per file.
  constexpr int kEditsPerFixture = 3;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(GPULINT_SOURCE_DIR) / "fixtures" / "python"))
    if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u);
  int checked = 0, expected = 0;
  unsigned seed = 7;
  for (const fs::path& f : files) {
    checked += replay(f, gpulint::testing::read_file(f), seed++, kEditsPerFixture);
    expected += kEditsPerFixture;
  }
  EXPECT_EQ(checked, expected);
}

// The comment-only re-lint is taken where it applies (the oracle above checks its results) and
// not where the code changed.
TEST(LspIncremental, CommentEditsReuseTheAnalysisCodeEditsDoNot) {
  std::string text = gpulint::bench::make_training_script(200);
  Document doc("file:///tmp/t.py", "/tmp/t.py", "python", 1, text);
  FileSettings settings = FileSettings::all_rules_enabled();
  RelintCache cache;
  auto relint = [&] {
    SourceFile src(doc.path(), doc.text());
    FileReport got = cache.relint(src, doc.tree()->raw(), settings);
    EXPECT_EQ(describe(got), describe(analyze_python(src, settings)));
    return got;
  };
  FileReport first = relint();
  ASSERT_FALSE(first.diagnostics.empty());
  auto line_end = [&](uint32_t line) {
    return static_cast<uint32_t>(doc.text().find('\n', doc.offset_of({line, 0})) - doc.offset_of({line, 0}));
  };
  // Line 44 is `            opt.step()` (no diagnostic), 46 `scale = torch.ones(10).cuda()`
  // (DEV003, whose range ends where the comment starts: not reused, conservatively).
  uint32_t col = line_end(44);
  doc.apply_change(gpulint::lsp::Range{{44, col}, {44, col}}, "  # todo");
  relint();
  doc.apply_change(gpulint::lsp::Range{{44, col + 2}, {44, col + 8}}, "# noqa: DEV003");
  relint();
  doc.apply_change(gpulint::lsp::Range{{44, col}, {44, col + 16}}, "");  // back to the original text
  relint();
  EXPECT_EQ(cache.reused(), 3u);
  EXPECT_EQ(cache.analysed(), 1u);
  col = line_end(46);
  doc.apply_change(gpulint::lsp::Range{{46, col}, {46, col}}, "  # noqa: DEV003");
  FileReport suppressed = relint();
  EXPECT_EQ(suppressed.suppressed, first.suppressed + 1);
  doc.apply_change(gpulint::lsp::Range{{46, 12}, {46, 12}}, "x");  // inside the code
  relint();
  doc.apply_change(gpulint::lsp::Range{{0, 0}, {0, 0}}, "# header\n");  // a comment line of its own
  relint();
  EXPECT_EQ(cache.reused(), 3u);
  EXPECT_EQ(cache.analysed(), 4u);
}

// A comment typed after trailing blanks on a block's last line joins that block in tree-sitter's
// tree (the block then ends after the comment), and a comment inside a multi-line call sits in
// an expression a fix may copy: neither may reuse the cached analysis unchecked.
TEST(LspIncremental, CommentsAfterTrailingBlanksOrInsideACallAreCheckedAgainstAFreshAnalysis) {
  std::string text =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "device = torch.device(\"cuda\")\n"
      "model = torch.nn.Linear(4, 1).to(device)\n"
      "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
      "loader = DataLoader(range(10), batch_size=2)\n"
      "losses = []\n"
      "for x in loader:\n"
      "    with torch.enable_grad():\n"
      "        loss = model(x.to(device)).sum()\n"
      "        loss.backward()\n"
      "        losses.append(loss)    \n"
      "    noise = torch.randn(4).to(\n"
      "        device)\n";
  Document doc("file:///tmp/b.py", "/tmp/b.py", "python", 1, text);
  FileSettings settings = FileSettings::all_rules_enabled();
  RelintCache cache;
  auto relint = [&] {
    SourceFile src(doc.path(), doc.text());
    FileReport got = cache.relint(src, doc.tree()->raw(), settings);
    EXPECT_EQ(describe(got), describe(analyze_python(src, settings)));
    return got;
  };
  FileReport first = relint();
  ASSERT_FALSE(first.diagnostics.empty());
  // After the trailing blanks of the block's last line (MEM001's line).
  doc.apply_change(gpulint::lsp::Range{{11, 31}, {11, 31}}, "# noqa: MEM001");
  FileReport suppressed = relint();
  EXPECT_EQ(suppressed.suppressed, first.suppressed + 1);
  // Inside the multi-line `.to(` call: a line that is not a whole statement.
  doc.apply_change(gpulint::lsp::Range{{12, 30}, {12, 30}}, "  # gpu");
  relint();
  EXPECT_EQ(cache.reused(), 0u);
}

// The tree-sitter reuse fix (CMakeLists.txt): a statement line inserted at the top of a class
// body, or a comment typed after a line near the top of the file, must re-lex only around the
// edit, not the rest of the module. Counted in tokens the lexer produced (tree-sitter's log),
// which does not depend on the machine's speed: unpatched, both re-lex ~95% of the file.
TEST(LspIncremental, ReparseAfterAnEditNearTheTopLexesOnlyAroundIt) {
  std::string text = gpulint::bench::make_training_script(2000);
  struct Counter {
    int lexed = 0;
    static void log(void* payload, TSLogType, const char* msg) {
      if (std::strncmp(msg, "lexed_lookahead", 15) == 0) ++static_cast<Counter*>(payload)->lexed;
    }
  } counter;
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, gpulint::python::python_language());
  ts_parser_set_logger(parser, TSLogger{&counter, &Counter::log});
  TSTree* tree = ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
  const int full = counter.lexed;
  ASSERT_GT(full, 10000);
  // Line 10 is the first line of `class Net0`'s body; line 16 `def forward(self, x):`.
  auto line_start = [&](uint32_t line) {
    uint32_t off = 0;
    for (uint32_t l = 0; l < line; ++l) off = static_cast<uint32_t>(text.find('\n', off)) + 1;
    return off;
  };
  struct Case { uint32_t line; bool at_end; std::string insert; };
  for (const Case& c : {Case{10, false, "    tmp = x.sum()\n"}, Case{16, true, "  # todo"}}) {
    uint32_t at = line_start(c.line);
    uint32_t col = 0;
    if (c.at_end) {
      col = static_cast<uint32_t>(text.find('\n', at)) - at;
      at += col;
    }
    std::string edited = text;
    edited.insert(at, c.insert);
    TSTree* old = ts_tree_copy(tree);
    bool newline = c.insert.back() == '\n';
    TSInputEdit e{at, at, at + static_cast<uint32_t>(c.insert.size()), {c.line, col}, {c.line, col},
                  newline ? TSPoint{c.line + 1, 0} : TSPoint{c.line, col + static_cast<uint32_t>(c.insert.size())}};
    ts_tree_edit(old, &e);
    counter.lexed = 0;
    TSTree* again = ts_parser_parse_string(parser, old, edited.data(), static_cast<uint32_t>(edited.size()));
    EXPECT_LT(counter.lexed, full / 20) << "line " << c.line << ": the re-parse lexed " << counter.lexed
                                        << " tokens, a full parse " << full;
    TSTree* fresh = ts_parser_parse_string(parser, nullptr, edited.data(), static_cast<uint32_t>(edited.size()));
    char* a = ts_node_string(ts_tree_root_node(again));
    char* b = ts_node_string(ts_tree_root_node(fresh));
    EXPECT_STREQ(a, b);
    std::free(a);
    std::free(b);
    ts_tree_delete(fresh);
    ts_tree_delete(again);
    ts_tree_delete(old);
  }
  ts_tree_delete(tree);
  ts_parser_delete(parser);
}

}  // namespace
