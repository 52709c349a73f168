// gpulint_parse_only: the parse-only limit `gpulint check` is compared with.
//
//   gpulint_parse_only [--threads N] [--list-files] [--files-from FILE] PATHS...
//
// Expands PATHS the way `gpulint check` does (gpulint's own discovery: default excludes,
// .gitignore, *.py and *.pyi), then reads every file and parses it with tree-sitter-python
// (python::Tree::parse) on N threads pulling file indexes from an atomic counter — the same
// scheduling as the driver, with nothing else: no UTF-8 check, no line index, no analysis.
// Prints `files F bytes B seconds S` (S: from the first read to the last parse; the process's
// wall time, including start-up and discovery, is what bench/run.sh measures).
//
// --list-files prints the discovered files (one per line) and exits: bench/run.sh uses it to
// build the one file list every tool is given. --files-from reads paths from FILE ("-": stdin)
// in addition to PATHS; named files are always taken, as `gpulint check` takes them.
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/discovery.h"
#include "analyzer/python/syntax.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: gpulint_parse_only [--threads N] [--list-files] [--files-from FILE] "
               "PATHS...\n");
  return 2;
}

bool read_file(const std::string& path, std::string* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  out->clear();
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = std::thread::hardware_concurrency();
  bool list_only = false;
  std::vector<std::string> paths;
  std::vector<std::string> named;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--threads" || a == "-j") && i + 1 < argc) {
      threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a.rfind("--threads=", 0) == 0) {
      threads = static_cast<unsigned>(std::strtoul(a.c_str() + 10, nullptr, 10));
    } else if (a == "--list-files") {
      list_only = true;
    } else if (a == "--files-from" && i + 1 < argc) {
      std::string from = argv[++i];
      std::ifstream file;
      std::istream* in = &std::cin;
      if (from != "-") {
        file.open(from);
        if (!file) {
          std::fprintf(stderr, "gpulint_parse_only: cannot read %s\n", from.c_str());
          return 2;
        }
        in = &file;
      }
      for (std::string line; std::getline(*in, line);)
        if (!line.empty()) named.push_back(line);
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else {
      paths.push_back(a);
    }
  }
  if (threads == 0) threads = 1;
  if (paths.empty() && named.empty()) return usage();

  std::vector<std::string> files = std::move(named);
  if (!paths.empty()) {
    gpulint::DiscoveryOptions opt;
    opt.cwd = std::filesystem::current_path();
    gpulint::DiscoveryResult found = gpulint::discover_files(paths, opt);
    for (const auto& e : found.errors) std::fprintf(stderr, "error: %s\n", e.c_str());
    for (const auto& f : found.files)
      if (f.kind == gpulint::FileKind::Python || f.kind == gpulint::FileKind::PythonStub)
        files.push_back(f.path);
  }
  if (list_only) {
    for (const auto& f : files) std::printf("%s\n", f.c_str());
    return 0;
  }

  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::size_t> unreadable{0};
  std::atomic<std::size_t> failed{0};
  std::function<void()> worker = [&] {
    std::string text;
    for (std::size_t i = next++; i < files.size(); i = next++) {
      if (!read_file(files[i], &text)) {
        ++unreadable;
        continue;
      }
      bytes += text.size();
      auto tree = gpulint::python::Tree::parse(text);
      if (!tree.valid()) ++failed;
    }
  };

  auto t0 = std::chrono::steady_clock::now();
  // The same large stacks as gpulint's driver, so both do the same amount of thread set-up.
  constexpr std::size_t kStackBytes = 256u << 20;
  unsigned n = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(files.size(), 1)));
  std::vector<pthread_t> pool;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<std::function<void()>*>(arg))();
    return nullptr;
  };
  for (unsigned t = 0; t < n; ++t) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kStackBytes);
    pthread_t id;
    if (pthread_create(&id, &attr, trampoline, &worker) == 0) pool.push_back(id);
    pthread_attr_destroy(&attr);
  }
  if (pool.empty()) worker();
  for (pthread_t id : pool) pthread_join(id, nullptr);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("files %zu bytes %llu seconds %.6f threads %u\n", files.size() - unreadable.load(),
              static_cast<unsigned long long>(bytes.load()), secs, n);
  if (unreadable) std::fprintf(stderr, "gpulint_parse_only: %zu unreadable files\n", unreadable.load());
  if (failed) std::fprintf(stderr, "gpulint_parse_only: %zu files did not parse\n", failed.load());
  return unreadable || failed ? 1 : 0;
}
