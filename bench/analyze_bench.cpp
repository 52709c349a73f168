// gpulint_analyze_bench: analyze_python (every rule enabled) against Tree::parse alone, on the
// same text, for the bundled training scripts (fixtures/demo/*.py, each on its own) and for
// all of fixtures/demo/*.py + fixtures/python/*/*.py together ("fixtures"). The ratio
// Parse/Analyze on one input is the share of the time the parse takes; the rest is the
// semantic model, the facts and the rules. Bytes/s are reported by Google Benchmark.
//
//   build/bench/gpulint_analyze_bench [--benchmark_filter=...] [--benchmark_format=json]
//   GPULINT_BENCH_ROOT=/path/to/checkout overrides where fixtures/ is read from.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/python/syntax.h"
#include "analyzer/rule.h"
#include "analyzer/source.h"

namespace fs = std::filesystem;
using namespace gpulint;

namespace {

struct Input {
  std::string name;
  std::vector<SourceFile> files;
  std::size_t bytes = 0;
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

FileSettings all_rules_settings() { return FileSettings::all_rules_enabled(); }

std::vector<fs::path> python_files(const fs::path& dir, bool recursive_one_level) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (recursive_one_level && e.is_directory()) {
      for (const auto& f : fs::directory_iterator(e.path()))
        if (f.is_regular_file() && f.path().extension() == ".py") out.push_back(f.path());
    } else if (!recursive_one_level && e.is_regular_file() && e.path().extension() == ".py") {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void add(Input& in, const fs::path& p) {
  LoadError err;
  auto src = SourceFile::from_bytes(p.filename().string(), read(p), &err);
  if (!src) return;
  in.bytes += src->text().size();
  in.files.push_back(std::move(*src));
}

void bench_analyze(benchmark::State& state, const Input* in, const FileSettings* settings) {
  std::size_t diagnostics = 0;
  for (auto _ : state) {
    for (const SourceFile& f : in->files) {
      FileReport r = analyze_python(f, *settings);
      diagnostics += r.diagnostics.size();
      benchmark::DoNotOptimize(r);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in->bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in->files.size()));
  state.counters["files"] = static_cast<double>(in->files.size());
  state.counters["bytes"] = static_cast<double>(in->bytes);
  state.counters["diagnostics"] =
      benchmark::Counter(static_cast<double>(diagnostics), benchmark::Counter::kAvgIterations);
}

void bench_parse(benchmark::State& state, const Input* in) {
  for (auto _ : state) {
    for (const SourceFile& f : in->files) {
      auto tree = python::Tree::parse(f.text());
      benchmark::DoNotOptimize(tree.root());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in->bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in->files.size()));
  state.counters["files"] = static_cast<double>(in->files.size());
  state.counters["bytes"] = static_cast<double>(in->bytes);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("GPULINT_BENCH_ROOT");
  fs::path root = env && *env ? fs::path(env) : fs::path(GPULINT_SOURCE_DIR);

  static std::vector<Input> inputs;  // outlives the registered benchmarks
  static const FileSettings settings = all_rules_settings();
  std::vector<fs::path> demo = python_files(root / "fixtures/demo", false);
  std::vector<fs::path> rules = python_files(root / "fixtures/python", true);
  inputs.reserve(demo.size() + 1);
  for (const auto& p : demo) {
    Input in;
    in.name = "demo/" + p.filename().string();
    add(in, p);
    if (!in.files.empty()) inputs.push_back(std::move(in));
  }
  Input all;
  all.name = "fixtures";
  for (const auto& p : demo) add(all, p);
  for (const auto& p : rules) add(all, p);
  if (!all.files.empty()) inputs.push_back(std::move(all));
  if (inputs.empty()) {
    std::fprintf(stderr, "gpulint_analyze_bench: no fixtures under %s\n", root.c_str());
    return 2;
  }

  for (const Input& in : inputs) {
    benchmark::RegisterBenchmark(("Analyze/" + in.name).c_str(), bench_analyze, &in, &settings);
    benchmark::RegisterBenchmark(("Parse/" + in.name).c_str(), bench_parse, &in);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
