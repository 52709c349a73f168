// The C++ front end: compile commands, the cached <torch/torch.h> PCH (built through a
// ClangTool), one LibTooling ToolInvocation per translation unit, facts, rules, NOLINT suppressions.
#include "analyzer/cpp/frontend.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclarationName.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/xxhash.h>

#include <fmt/format.h>

#include "analyzer/cpp/compile_flags.h"
#include "analyzer/cpp/facts_builder.h"
#include "analyzer/rule.h"

#ifndef GPULINT_CLANG_RESOURCE_DIR
#error "GPULINT_CLANG_RESOURCE_DIR must name clang's resource directory (CMake sets it)"
#endif

namespace fs = std::filesystem;

namespace gpulint::cpp {
namespace {

// A database answering every file with one command (the fallback flags, the PCH build).
class SingleCommandDatabase : public clang::tooling::CompilationDatabase {
 public:
  explicit SingleCommandDatabase(clang::tooling::CompileCommand cmd) : cmd_(std::move(cmd)) {}
  std::vector<clang::tooling::CompileCommand> getCompileCommands(llvm::StringRef) const override {
    return {cmd_};
  }

 private:
  clang::tooling::CompileCommand cmd_;
};

// GCC's precompiled headers are hidden from clang. CMake's target_precompile_headers, built
// with g++, writes `-include …/cmake_pch.hxx` into the compile command and `cmake_pch.hxx.gch`
// beside it; clang's driver looks for FILE.gch next to an -include'd FILE too, and then fails
// on GCC's format ("file '….gch' is not a valid precompiled PCH file"). Without the .gch,
// clang reads the header itself.
class HideGccPch : public llvm::vfs::ProxyFileSystem {
 public:
  using ProxyFileSystem::ProxyFileSystem;
  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
    if (is_gch(path)) return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::status(path);
  }
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    if (is_gch(path)) return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::openFileForRead(path);
  }

 private:
  static bool is_gch(const llvm::Twine& path) {
    llvm::SmallString<256> buf;
    return path.toStringRef(buf).endswith(".gch");
  }
};

// Clang's diagnostics: counted, the first error kept (with its position in the main file),
// nothing printed.
class DiagnosticCollector : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    ++errors;
    if (info.getID() == clang::diag::err_pp_file_not_found) missing_header = true;
    if (info.getID() == clang::diag::err_undeclared_var_use && info.getNumArgs() > 0) {
      // "use of undeclared identifier 'torch'": LibTorch's namespace is used but not declared.
      std::string name;
      if (info.getArgKind(0) == clang::DiagnosticsEngine::ak_identifierinfo && info.getArgIdentifier(0))
        name = info.getArgIdentifier(0)->getName().str();
      else if (info.getArgKind(0) == clang::DiagnosticsEngine::ak_declarationname)
        name = clang::DeclarationName::getFromOpaqueInteger(info.getRawArg(0)).getAsString();
      if (name == "torch" || name == "at" || name == "c10") libtorch_undeclared = true;
    }
    if (!first_message.empty()) return;
    llvm::SmallString<256> msg;
    info.FormatDiagnostic(msg);
    first_message = std::string(msg.str());
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      clang::SourceLocation loc = sm.getFileLoc(info.getLocation());
      // An error inside a header is shown at the main file's #include that leads to it.
      for (int i = 0; i < 256 && loc.isValid() && !sm.isWrittenInMainFile(loc); ++i)
        loc = sm.getIncludeLoc(sm.getFileID(loc));
      if (loc.isValid() && sm.isWrittenInMainFile(loc)) {
        first_offset = sm.getFileOffset(loc);
      }
      clang::SourceLocation at = sm.getFileLoc(info.getLocation());
      if (at.isValid() && !sm.isWrittenInMainFile(at)) {
        clang::PresumedLoc p = sm.getPresumedLoc(at);
        if (p.isValid()) first_message = fmt::format("{}:{}: {}", p.getFilename(), p.getLine(), first_message);
      }
    }
  }
  uint32_t errors = 0;
  std::string first_message;
  uint32_t first_offset = 0;
  bool missing_header = false;  ///< an #include clang could not find
  bool libtorch_undeclared = false;  ///< `torch` / `at` / `c10` used without a declaration
};

struct TuResult {
  bool ran = false;
  bool has_libtorch = false;  ///< the translation unit declares namespace `torch`
  FileFacts facts;
  std::vector<Comment> comments;
};

class FactsConsumer : public clang::ASTConsumer {
 public:
  explicit FactsConsumer(TuResult& out) : out_(out) {}
  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    clang::SourceManager& sm = ctx.getSourceManager();
    // Only the main file's declarations are searched (setTraversalScope): the headers'
    // hundreds of thousands of declarations are parsed but never walked.
    std::vector<clang::Decl*> scope;
    for (clang::Decl* d : ctx.getTranslationUnitDecl()->decls())
      if (sm.isWrittenInMainFile(sm.getExpansionLoc(d->getLocation()))) scope.push_back(d);
    ctx.setTraversalScope(scope);
    out_.has_libtorch = !ctx.getTranslationUnitDecl()->lookup(&ctx.Idents.get("torch")).empty();
    out_.facts = build_facts(ctx);
    // Comments, from clang's raw lexer over the main file (strings never count).
    clang::FileID main = sm.getMainFileID();
    llvm::StringRef buf = sm.getBufferData(main);
    clang::Lexer lex(sm.getLocForStartOfFile(main), ctx.getLangOpts(), buf.begin(), buf.begin(), buf.end());
    lex.SetCommentRetentionState(true);
    clang::Token tok;
    while (true) {
      bool eof = lex.LexFromRawLexer(tok);
      if (tok.is(clang::tok::comment)) {
        uint32_t off = sm.getFileOffset(tok.getLocation());
        out_.comments.push_back({off, off + tok.getLength()});
      }
      if (eof || tok.is(clang::tok::eof)) break;
    }
    out_.ran = true;
  }

 private:
  TuResult& out_;
};

class FactsAction : public clang::ASTFrontendAction {
 public:
  explicit FactsAction(TuResult& out) : out_(out) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    // A missing header is fatal to clang, which then stops parsing: made an ordinary error,
    // the rest of the file is still parsed and analysed (as clangd does).
    ci.getDiagnostics().setFatalsAsError(true);
    return std::make_unique<FactsConsumer>(out_);
  }

 private:
  TuResult& out_;
};

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::string cache_root(const CppOptions& o) {
  if (!o.cache_dir.empty()) return o.cache_dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/gpulint";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/gpulint";
  const char* t = std::getenv("TMPDIR");
  return std::string(t && *t ? t : "/tmp") + "/gpulint-cache";
}

// Compile flags without the input file and the output/dependency options: what a TU shares
// with the PCH built for it.
std::vector<std::string> compile_flags(const clang::tooling::CompileCommand& cmd) {
  std::vector<std::string> out;
  const auto& a = cmd.CommandLine;
  fs::path file = fs::path(cmd.Filename);
  for (std::size_t i = 1; i < a.size(); ++i) {
    const std::string& s = a[i];
    if (s == "-c" || s == "-fsyntax-only" || s == "-MD" || s == "-MMD" || s == "-M" || s == "-MM") continue;
    if (s == "-o" || s == "-MF" || s == "-MT" || s == "-MQ") { ++i; continue; }
    if (s.rfind("-o", 0) == 0 && s.size() > 2 && s != "-objc") continue;
    if (s == "--") continue;
    if (s == cmd.Filename || (!s.empty() && s[0] != '-' && (fs::path(cmd.Directory) / s).lexically_normal() == fs::path(cmd.Directory) / file))
      continue;
    if (s.rfind("-fcolor-diagnostics", 0) == 0 || s.rfind("-fdiagnostics-color", 0) == 0) continue;
    out.push_back(s);
  }
  return out;
}

// The <torch/torch.h> a command's include path finds, if any.
std::optional<fs::path> find_torch_header(const std::vector<std::string>& flags, const std::string& directory) {
  std::vector<fs::path> dirs;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const std::string& s = flags[i];
    for (const char* opt : {"-I", "-isystem", "-iquote", "-idirafter"}) {
      std::string o(opt);
      if (s == o && i + 1 < flags.size()) dirs.push_back(flags[i + 1]);
      else if (s.size() > o.size() && s.rfind(o, 0) == 0) dirs.push_back(s.substr(o.size()));
    }
  }
  dirs.push_back("/usr/include");
  for (fs::path d : dirs) {
    if (d.is_relative()) d = fs::path(directory) / d;
    std::error_code ec;
    if (fs::is_regular_file(d / "torch/torch.h", ec)) return (d / "torch/torch.h").lexically_normal();
  }
  return std::nullopt;
}

int64_t mtime_ns(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Does the text include <torch/torch.h>? (Decides only whether the PCH is worth loading.)
bool includes_torch(std::string_view text) {
  for (std::size_t p = text.find("torch/torch.h"); p != std::string_view::npos; p = text.find("torch/torch.h", p + 1)) {
    std::size_t ls = text.rfind('\n', p);
    ls = ls == std::string_view::npos ? 0 : ls + 1;
    std::string_view line = text.substr(ls, p - ls);
    std::size_t h = line.find_first_not_of(" \t");
    if (h != std::string_view::npos && line[h] == '#' && line.find("include") != std::string_view::npos) return true;
  }
  return false;
}

// `flags` without their language options (`-x LANG`, `-xLANG`) and C standards (`-std=c11`,
// `-std=gnu99`, `-std=iso9899:…`; clang rejects them for C++): a header is always parsed as
// C++ (`-x c++-header`, added by the caller just before the file), whatever language the
// translation unit its command was interpolated from had (InterpolatingCompilationDatabase
// writes `-x c-header` and the C file's -std for a `.h` beside a C file).
std::vector<std::string> as_cpp_header_flags(const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    if (f == "-x") {
      ++i;
      continue;
    }
    if (f.size() > 2 && f.rfind("-x", 0) == 0) continue;
    out.push_back(f);
  }
  return without_c_standards(out);
}


}  // namespace

std::vector<std::string> CppProject::fallback_flags() {
  std::vector<std::string> flags{"-std=c++17"};
  std::vector<fs::path> prefixes;
  if (const char* l = std::getenv("LIBTORCH"); l && *l) prefixes.push_back(l);
  if (const char* t = std::getenv("Torch_DIR"); t && *t) prefixes.push_back(fs::path(t) / ".." / ".." / "..");
  for (const fs::path& p : prefixes) {
    fs::path inc = (p / "include").lexically_normal();
    if (is_dir(inc / "torch/csrc/api/include")) {
      flags.push_back("-isystem" + inc.string());
      flags.push_back("-isystem" + (inc / "torch/csrc/api/include").string());
      return flags;
    }
  }
  if (is_dir("/usr/include/torch/csrc/api/include")) flags.push_back("-isystem/usr/include/torch/csrc/api/include");
  return flags;
}

struct CppProject::Impl {
  CppOptions opt;
  std::unique_ptr<clang::tooling::CompilationDatabase> fixed_db;  // from -p
  std::mutex mu;
  // Directory → database found upward from it (null: none), or the error loading it.
  struct Found {
    std::shared_ptr<clang::tooling::CompilationDatabase> db;
    std::string error;
  };
  std::map<std::string, Found> by_dir;
  std::once_flag fallback_note;
  std::once_flag pch_failed_note;
  std::once_flag dropped_flags_note;
  std::map<std::string, std::shared_future<std::optional<std::string>>> pch;
  PchStats stats;

  void note(const std::string& line) {
    if (opt.note) opt.note(line);
    else std::cerr << line << "\n";
  }

  // Once per run: the fallback flags are used (first for `abs_path`).
  void note_fallback(const fs::path& abs_path) {
    std::call_once(fallback_note, [&] {
      std::string flags;
      for (auto& f : CppProject::fallback_flags()) flags += (flags.empty() ? "" : " ") + f;
      note(fmt::format("gpulint: no compile_commands.json for {} (pass -p BUILD_DIR); parsing C++ with: {}",
                       abs_path.string(), flags));
    });
  }

  // Loads DIR/compile_commands.json; missing commands are inferred from similar files.
  static std::unique_ptr<clang::tooling::CompilationDatabase> load(const fs::path& json, std::string* error) {
    std::string err;
    auto db = clang::tooling::JSONCompilationDatabase::loadFromFile(
        json.string(), err, clang::tooling::JSONCommandLineSyntax::AutoDetect);
    if (!db) {
      *error = fmt::format("{}: malformed compile_commands.json: {}", json.string(), err.empty() ? "cannot be read" : err);
      return nullptr;
    }
    return clang::tooling::inferMissingCompileCommands(std::move(db));
  }

  Found find_upward(const fs::path& dir) {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::string> visited;
    Found result;
    for (fs::path d = dir; !d.empty(); d = d.parent_path()) {
      auto it = by_dir.find(d.string());
      if (it != by_dir.end()) {
        result = it->second;
        break;
      }
      visited.push_back(d.string());
      std::error_code ec;
      fs::path json = d / "compile_commands.json";
      if (fs::is_regular_file(json, ec)) {
        std::string err;
        auto db = load(json, &err);
        result.db = std::shared_ptr<clang::tooling::CompilationDatabase>(std::move(db));
        result.error = err;
        break;
      }
      if (d == d.root_path()) break;
    }
    for (const auto& v : visited) by_dir[v] = result;
    return result;
  }

  // The PCH of <torch/torch.h> for these flags: built once (per run and on disk), shared by
  // every thread. nullopt when it cannot be built.
  std::optional<std::string> pch_for(const std::vector<std::string>& flags, const std::string& directory) {
    auto header = find_torch_header(flags, directory);
    if (!header) return std::nullopt;
    // The directory matters only to relative paths in the flags.
    bool relative = std::any_of(flags.begin(), flags.end(), [](const std::string& f) {
      for (const char* o : {"-I", "-isystem", "-iquote", "-idirafter", "-include"})
        if (f.rfind(o, 0) == 0 && f.size() > std::strlen(o) && f[std::strlen(o)] != '/') return true;
      return !f.empty() && f[0] != '-' && f[0] != '/';
    });
    std::string key_text = fmt::format("{}\n{}\n{}\n{}", CLANG_VERSION_STRING, relative ? directory : std::string(),
                                       header->string(), mtime_ns(*header));
    for (const auto& f : flags) key_text += "\n" + f;
    std::string key = fmt::format("{:016x}", llvm::xxHash64(key_text));
    std::shared_future<std::optional<std::string>> fut;
    std::promise<std::optional<std::string>> prom;
    bool builder = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = pch.find(key);
      if (it == pch.end()) {
        fut = prom.get_future().share();
        pch[key] = fut;
        builder = true;
      } else {
        fut = it->second;
      }
    }
    if (!builder) return fut.get();
    std::optional<std::string> result;
    try {
      result = build_pch(key, flags, directory);
    } catch (...) {
      result = std::nullopt;
    }
    prom.set_value(result);
    return result;
  }

  std::optional<std::string> build_pch(const std::string& key, const std::vector<std::string>& flags,
                                       const std::string& directory) {
    fs::path dir = cache_root(opt);
    std::error_code ec;
    fs::create_directories(dir, ec);
    fs::path hdr = dir / ("torch-" + key + ".h");
    fs::path out = dir / ("torch-" + key + ".pch");
    if (fs::is_regular_file(out, ec) && fs::is_regular_file(hdr, ec)) {
      std::lock_guard<std::mutex> lock(mu);
      ++stats.reused;
      return out.string();
    }
    auto t0 = std::chrono::steady_clock::now();
    {
      fs::path tmp_hdr = hdr;
      tmp_hdr += fmt::format(".{}.tmp", ::getpid());
      std::ofstream h(tmp_hdr);
      h << "// gpulint: the precompiled header of <torch/torch.h> for one set of compile flags\n"
           "#include <torch/torch.h>\n";
      h.close();
      fs::rename(tmp_hdr, hdr, ec);
      if (ec) return std::nullopt;
    }
    fs::path tmp = out;
    tmp += fmt::format(".{}.{}.tmp", ::getpid(), std::hash<std::thread::id>()(std::this_thread::get_id()));
    clang::tooling::CompileCommand cmd;
    cmd.Directory = directory;
    cmd.Filename = hdr.string();
    cmd.CommandLine = {"clang++"};
    cmd.CommandLine.insert(cmd.CommandLine.end(), flags.begin(), flags.end());
    for (const char* a : {"-w", "-fpch-instantiate-templates", "-resource-dir", GPULINT_CLANG_RESOURCE_DIR, "-x", "c++-header"})
      cmd.CommandLine.push_back(a);
    cmd.CommandLine.push_back(hdr.string());
    cmd.CommandLine.push_back("-o");
    cmd.CommandLine.push_back(tmp.string());
    SingleCommandDatabase db(cmd);
    clang::tooling::ClangTool tool(db, {hdr.string()}, std::make_shared<clang::PCHContainerOperations>(),
                                   llvm::makeIntrusiveRefCnt<HideGccPch>(llvm::vfs::createPhysicalFileSystem()));
    tool.clearArgumentsAdjusters();
    DiagnosticCollector diags;
    tool.setDiagnosticConsumer(&diags);
    int rc = tool.run(clang::tooling::newFrontendActionFactory<clang::GeneratePCHAction>().get());
    if (rc != 0 || diags.errors > 0 || !fs::is_regular_file(tmp, ec)) {
      fs::remove(tmp, ec);
      std::call_once(pch_failed_note, [&] {
        note(fmt::format("gpulint: could not precompile <torch/torch.h> ({}); C++ files are parsed without a PCH",
                         diags.first_message.empty() ? "clang failed" : diags.first_message));
      });
      return std::nullopt;
    }
    fs::rename(tmp, out, ec);
    if (ec) {
      fs::remove(tmp, ec);
      return std::nullopt;
    }
    std::lock_guard<std::mutex> lock(mu);
    ++stats.built;
    stats.build_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out.string();
  }
};

CppProject::CppProject(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CppProject::~CppProject() = default;

std::unique_ptr<CppProject> CppProject::open(CppOptions options, std::string* error) {
  auto impl = std::make_unique<Impl>();
  if (!options.build_dir.empty()) {
    fs::path json = fs::path(options.build_dir) / "compile_commands.json";
    std::error_code ec;
    if (!fs::is_regular_file(json, ec)) {
      *error = fmt::format("{}: no compile_commands.json (configure the build with "
                           "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)", json.string());
      return nullptr;
    }
    impl->fixed_db = Impl::load(json, error);
    if (!impl->fixed_db) return nullptr;
  }
  impl->opt = std::move(options);
  return std::unique_ptr<CppProject>(new CppProject(std::move(impl)));
}

CppProject::PchStats CppProject::pch_stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

std::optional<TuCommand> CppProject::command_for(const fs::path& abs_path, std::string* error) {
  clang::tooling::CompilationDatabase* db = impl_->fixed_db.get();
  Impl::Found found;
  if (!db) {
    found = impl_->find_upward(abs_path.parent_path());
    if (!found.error.empty()) {
      *error = found.error;
      return std::nullopt;
    }
    db = found.db.get();
  }
  if (db) {
    auto cmds = db->getCompileCommands(abs_path.string());
    if (!cmds.empty()) {
      TuCommand t;
      t.arguments = cmds.front().CommandLine;
      t.directory = cmds.front().Directory;
      t.source = cmds.front().Heuristic.empty() ? CommandSource::Database : CommandSource::Inferred;
      // Keep the analysed file as the input (an inferred command names another file).
      t.arguments = {t.arguments.empty() ? std::string("clang++") : t.arguments.front()};
      clang::tooling::CompileCommand c = cmds.front();
      for (auto& f : compile_flags(c)) t.arguments.push_back(f);
      t.arguments.push_back(abs_path.string());
      return t;
    }
  }
  TuCommand t;
  t.arguments = {"clang++"};
  for (auto& f : fallback_flags()) t.arguments.push_back(f);
  t.arguments.push_back(abs_path.string());
  t.directory = abs_path.parent_path().string();
  t.source = CommandSource::Fallback;
  // A header's note waits for its analysis: a C header is left silent (analyze).
  if (!is_cpp_header_path(abs_path)) impl_->note_fallback(abs_path);
  return t;
}

FileReport CppProject::analyze(const SourceFile& source, const FileSettings& settings) {
  FileReport report;
  report.language = Language::Cpp;
  std::error_code ec;
  fs::path abs = fs::absolute(source.path(), ec).lexically_normal();
  std::string error;
  auto cmd = command_for(abs, &error);
  if (!cmd) {
    report.error = error;
    return report;
  }
  // A command written for g++ may hold flags Clang rejects: left out (compile_flags.h).
  std::vector<std::string> dropped;
  std::vector<std::string> flags =
      clang_compatible_flags(std::vector<std::string>(cmd->arguments.begin() + 1, cmd->arguments.end() - 1), &dropped);
  if (!dropped.empty())
    std::call_once(impl_->dropped_flags_note, [&] {
      std::string list;
      for (const auto& d : dropped) list += (list.empty() ? "" : " ") + d;
      impl_->note(fmt::format("gpulint: compile flags clang 16 or LibTorch's headers do not accept were left out or rewritten (first seen for {}): {}",
                              abs.string(), list));
    });

  // A header (.h .hh .hpp .hxx) is analysed as its own main file, parsed as a C++ header.
  // Its command is the database's entry when it has one, else the one clang's
  // inferMissingCompileCommands interpolates from the nearest translation unit (Impl::load),
  // else the fallback flags; `#include "…"` finds the header's neighbours either way (clang
  // searches the includer's directory first). With `-x c++-header` clang does not warn
  // "#pragma once in main file" (and the analysis runs with -w regardless).
  const bool header = is_cpp_header_path(abs);
  if (header) flags = as_cpp_header_flags(flags);

  std::optional<std::string> pch;
  if (impl_->opt.use_pch && includes_torch(source.text())) pch = impl_->pch_for(flags, cmd->directory);

  auto run = [&](const std::optional<std::string>& with_pch, TuResult& out, DiagnosticCollector& diags) {
    clang::tooling::CompileCommand c;
    c.Directory = cmd->directory;
    c.Filename = abs.string();
    c.CommandLine = {"clang++"};
    c.CommandLine.insert(c.CommandLine.end(), flags.begin(), flags.end());
    for (const char* a : {"-fsyntax-only", "-w", "-ferror-limit=0", "-fno-caret-diagnostics", "-resource-dir",
                          GPULINT_CLANG_RESOURCE_DIR})
      c.CommandLine.push_back(a);
    if (with_pch) {
      c.CommandLine.push_back("-include-pch");
      c.CommandLine.push_back(*with_pch);
    }
    // Without a database, a header's own directory is also an include directory (so
    // `#include <sibling.hpp>`, and a nested header's `#include "sibling.hpp"`, resolve). Not
    // part of the PCH's key: clang does not compare include paths when it loads a PCH.
    if (header && cmd->source == CommandSource::Fallback) c.CommandLine.push_back("-I" + abs.parent_path().string());
    if (header) {
      c.CommandLine.push_back("-x");
      c.CommandLine.push_back("c++-header");
    }
    c.CommandLine.push_back(abs.string());
    // One LibTooling ToolInvocation per translation unit (what ClangTool runs for each file,
    // without its "Error while processing" line on stderr). The analysed text (which may be a
    // fixed version of the file, or stdin) is served from memory over a physical file system
    // of its own: the command's directory becomes its working directory, never the process's.
    auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::createPhysicalFileSystem());
    auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    memory->addFile(abs.string(), 0, llvm::MemoryBuffer::getMemBufferCopy(source.text(), abs.string()));
    overlay->pushOverlay(memory);
    auto visible = llvm::makeIntrusiveRefCnt<HideGccPch>(overlay);
    if (!c.Directory.empty()) (void)visible->setCurrentWorkingDirectory(c.Directory);
    llvm::IntrusiveRefCntPtr<clang::FileManager> files(new clang::FileManager(clang::FileSystemOptions(), visible));
    clang::tooling::ToolInvocation invocation(c.CommandLine, std::make_unique<FactsAction>(out), files.get(),
                                              std::make_shared<clang::PCHContainerOperations>());
    invocation.setDiagnosticConsumer(&diags);
    invocation.run();
  };
  TuResult tu;
  DiagnosticCollector diags;
  auto parse = [&](const std::optional<std::string>& with_pch) {
    tu = TuResult{};
    diags.errors = 0;
    diags.first_message.clear();
    diags.first_offset = 0;
    diags.missing_header = false;
    diags.libtorch_undeclared = false;
    run(with_pch, tu, diags);
  };
  auto pch_failed = [&] {
    return !tu.ran || diags.first_message.find("precompiled header") != std::string::npos ||
           diags.first_message.find("PCH") != std::string::npos;
  };
  parse(pch);
  // What the file itself says about LibTorch, before any parse with its declarations loaded.
  const bool own_libtorch = tu.ran && tu.has_libtorch;
  const bool libtorch_undeclared = diags.libtorch_undeclared;
  if (pch && pch_failed()) {
    parse(std::nullopt);  // a stale or incompatible PCH: parse without it
  } else if (!pch && impl_->opt.use_pch && (libtorch_undeclared || (!header && diags.missing_header))) {
    // clang found `torch` (or `at`, `c10`) used but undeclared: a header-only class whose
    // including .cpp includes <torch/torch.h> first, or a project header that is not there
    // ("resnet.h", "trainer.h"), in a LibTorch program usually where <torch/torch.h> comes
    // from. Parse again with LibTorch's declarations loaded first (the same PCH a file that
    // includes <torch/torch.h> gets); a missing header is still reported.
    if (auto prelude = impl_->pch_for(flags, cmd->directory)) {
      parse(prelude);
      if (pch_failed()) parse(std::nullopt);
    }
  }
  // A header that neither includes <torch/torch.h>, nor gets LibTorch through its includes,
  // nor uses an undeclared `torch` (a C header, a C++ utility header) cannot hold a finding:
  // it is left silent, without the syntax errors a C header parsed as C++ may have. One that
  // uses LibTorch keeps its syntax error (a <torch/torch.h> the flags cannot find is worth a
  // warning). Decided from the first parse: the retry above loads LibTorch into any file.
  if (header && !own_libtorch && !libtorch_undeclared && !includes_torch(source.text())) return report;
  if (header && cmd->source == CommandSource::Fallback) impl_->note_fallback(abs);
  if (diags.errors > 0 || !tu.ran) {
    SyntaxErrorNote note;
    note.offset = std::min<uint32_t>(diags.first_offset, static_cast<uint32_t>(source.text().size()));
    note.error_count = std::max<uint32_t>(diags.errors, 1);
    std::string first = diags.first_message.empty() ? "clang could not parse the file" : diags.first_message;
    note.message = fmt::format("{} ({} compiler error{})", first, note.error_count, note.error_count == 1 ? "" : "s");
    report.syntax_error = note;
  }
  if (!tu.ran) return report;
  for (const Rule* rule : all_rules()) {
    const RuleInfo& info = rule->info();
    if (!info.cpp || !settings.enabled.count(std::string(info.code))) continue;
    rule->check(tu.facts, settings.options, report.diagnostics);
  }
  if (!report.diagnostics.empty())
    report.suppressed = apply_cpp_suppressions(source, tu.comments, report.diagnostics, &report.suppression_errors);
  std::stable_sort(report.diagnostics.begin(), report.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     if (a.start != b.start) return a.start < b.start;
                     return a.code < b.code;
                   });
  // Findings in a function another file may call once per step wait for the whole run
  // (resolve_cross_file, analyzer/driver.h).
  auto cross = std::stable_partition(report.diagnostics.begin(), report.diagnostics.end(),
                                     [](const Diagnostic& d) { return d.needs_call_in_loop.empty(); });
  report.pending.assign(std::make_move_iterator(cross), std::make_move_iterator(report.diagnostics.end()));
  report.diagnostics.erase(cross, report.diagnostics.end());
  report.cross_file = tu.facts.cross_file;
  return report;
}

}  // namespace gpulint::cpp
