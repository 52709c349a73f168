// gpulint confirm (runtime_check/): statistics and verdicts on synthetic numbers; the process
// runner with /bin/sh children (timeouts, leftover processes, SIGTERM-proof grandchildren,
// crashes, Ctrl-C); the temp dir; the NVML sampler where there is no driver; the reports; and
// the whole command with a fake `python` and with the real harness on a stub `torch`.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "analyzer/analysis.h"
#include "analyzer/output.h"
#include "runtime_check/confirm.h"
#include "runtime_check/gpu_sampler.h"
#include "runtime_check/harness_files.h"
#include "runtime_check/process.h"
#include "runtime_check/report.h"
#include "runtime_check/stats.h"

namespace fs = std::filesystem;
using namespace gpulint::runtime_check;

namespace {

// A scratch directory for one test (runtime_check::TempDir itself, tested below).
struct Scratch {
  Scratch() {
    std::string error;
    dir.emplace(std::move(*TempDir::create("gpulint-rc-test-", &error)));
  }
  fs::path path() const { return dir->path(); }
  std::optional<TempDir> dir;
};

void write_file(const fs::path& p, const std::string& text, bool executable = false) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
  if (executable) fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool pid_gone(pid_t pid) { return ::kill(pid, 0) == -1 && errno == ESRCH; }

pid_t read_pid(const fs::path& p) {
  for (int i = 0; i < 200 && (!fs::exists(p) || fs::file_size(p) == 0); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return static_cast<pid_t>(std::atol(read_file(p).c_str()));
}

RunMeasure run_of(std::vector<double> walls, double wait_fraction = 0.0,
                  double memory_slope = 0.0) {
  RunMeasure m;
  for (std::size_t i = 0; i < walls.size(); ++i) {
    m.wall_s.push_back(walls[i]);
    m.wait_s.push_back(walls[i] * wait_fraction);
    m.memory.push_back(1e6 + memory_slope * static_cast<double>(i));
  }
  m.memory_source = "rss_bytes";
  return m;
}

// `n` steps around `center` (±1%, deterministic).
std::vector<double> steps_around(double center, std::size_t n = 30) {
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(center * (1 + 0.01 * (static_cast<double>(i % 3) - 1)));
  return v;
}

// Restores an environment variable at scope end.
struct EnvGuard {
  EnvGuard(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~EnvGuard() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

// --- statistics ------------------------------------------------------------------------------

TEST(RuntimeStats, MedianAndSlope) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
  auto s = least_squares_slope({0, 1, 2, 3}, {10, 12, 14, 16});
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(*s, 2);
  EXPECT_FALSE(least_squares_slope({1}, {1}));
  EXPECT_FALSE(least_squares_slope({1, 1}, {1, 2}));
}

TEST(RuntimeStats, VariantStatistics) {
  VariantStats v = variant_stats({run_of(steps_around(0.010), 0.5, 2048),
                                  run_of(steps_around(0.011), 0.5, 4096),
                                  run_of(steps_around(0.012), 0.5, 1024)});
  EXPECT_EQ(v.runs, 3u);
  EXPECT_EQ(v.min_steps, 30u);
  EXPECT_NEAR(v.median_step_s, 0.011, 1e-9);
  EXPECT_NEAR(v.run_median_min, 0.010, 1e-9);
  EXPECT_NEAR(v.run_median_max, 0.012, 1e-9);
  EXPECT_NEAR(v.spread, 0.002 / 0.011, 1e-9);
  ASSERT_TRUE(v.wait_share);
  EXPECT_NEAR(*v.wait_share, 0.5, 1e-9);
  ASSERT_TRUE(v.memory_growth);
  EXPECT_NEAR(*v.memory_growth, 2048, 1e-6);
  EXPECT_NEAR(*v.memory_growth_min, 1024, 1e-6);
  EXPECT_NEAR(*v.memory_growth_max, 4096, 1e-6);
  EXPECT_FALSE(v.gpu_util_median);
  // Runs without steps do not count.
  EXPECT_EQ(variant_stats({RunMeasure{}, run_of(steps_around(0.01))}).runs, 1u);
}

TEST(RuntimeStats, SpeedVerdicts) {
  VariantStats base = variant_stats({run_of(steps_around(0.010)), run_of(steps_around(0.0105)),
                                     run_of(steps_around(0.0102))});
  VariantStats fast = variant_stats({run_of(steps_around(0.004)), run_of(steps_around(0.0042)),
                                     run_of(steps_around(0.0041))});
  Judgement j = judge_speed(base, fast);
  EXPECT_EQ(j.verdict, Verdict::Confirmed) << j.reason;
  ASSERT_TRUE(j.speedup);
  EXPECT_NEAR(*j.speedup, 0.0102 / 0.0041, 0.01);
  EXPECT_NE(j.reason.find("ms"), std::string::npos);

  // Faster on the median but the runs overlap: not confirmed.
  VariantStats overlap = variant_stats({run_of(steps_around(0.0098)), run_of(steps_around(0.0103)),
                                        run_of(steps_around(0.0099))});
  EXPECT_EQ(judge_speed(base, overlap).verdict, Verdict::NotConfirmed);
  // Slower: not confirmed.
  VariantStats slow = variant_stats({run_of(steps_around(0.02)), run_of(steps_around(0.021))});
  EXPECT_EQ(judge_speed(base, slow).verdict, Verdict::NotConfirmed);

  // Too few runs, too few steps, too noisy: inconclusive.
  EXPECT_EQ(judge_speed(base, variant_stats({run_of(steps_around(0.004))})).verdict,
            Verdict::Inconclusive);
  VariantStats short_runs = variant_stats({run_of(steps_around(0.004, 5)), run_of(steps_around(0.004, 5))});
  EXPECT_EQ(judge_speed(base, short_runs).verdict, Verdict::Inconclusive);
  VariantStats noisy = variant_stats({run_of(steps_around(0.007)), run_of(steps_around(0.0105))});
  Judgement jn = judge_speed(base, noisy);
  EXPECT_EQ(jn.verdict, Verdict::Inconclusive);
  EXPECT_NE(jn.reason.find("noisy"), std::string::npos);
  // Noisy, but every fixed run beats every baseline run by more than either spread (the H100's
  // DL002 fixture: baseline 82.9-86.3 ms, fixed 4.36-5.97 ms): confirmed.
  VariantStats noisy_fast = variant_stats({run_of(steps_around(0.003)), run_of(steps_around(0.005))});
  EXPECT_EQ(judge_speed(base, noisy_fast).verdict, Verdict::Confirmed);
  // Noisy and not faster on the median (the H100's negative: baseline 2.09-2.36 ms, fixed
  // 2.11-3.01 ms): not confirmed, not inconclusive.
  VariantStats noisy_slow = variant_stats({run_of(steps_around(0.0101)), run_of(steps_around(0.0135))});
  Judgement js = judge_speed(base, noisy_slow);
  EXPECT_EQ(js.verdict, Verdict::NotConfirmed) << js.reason;
  // No overlap, but a gap smaller than the spread: not confirmed.
  VariantStats barely = variant_stats({run_of(steps_around(0.0096)), run_of(steps_around(0.0099))});
  EXPECT_EQ(judge_speed(base, barely).verdict, Verdict::NotConfirmed);

  // GPU-only fixes measured on the CPU: inconclusive, numbers kept.
  Judgement cpu = judge_finding("DL002", base, fast, "cpu");
  EXPECT_EQ(cpu.verdict, Verdict::Inconclusive);
  EXPECT_NE(cpu.reason.find("CPU"), std::string::npos);
  EXPECT_EQ(judge_finding("DL002", base, fast, "cuda").verdict, Verdict::Confirmed);
  EXPECT_EQ(judge_finding("DL001", base, fast, "cpu").verdict, Verdict::Confirmed);
}

TEST(RuntimeStats, HostMemoryDecidesWhenGpuMemoryIsFlat) {
  // Training with a kept loss on a GPU: torch.cuda stays flat (backward() frees the saved
  // tensors) while host RSS grows with the kept graph nodes.
  auto gpu_run = [](double gpu_slope, double host_slope) {
    RunMeasure m = run_of(steps_around(0.01), 0, gpu_slope);
    m.memory_source = "cuda_allocated";
    for (std::size_t i = 0; i < m.memory.size(); ++i)
      m.host_memory.push_back(5e8 + host_slope * static_cast<double>(i));
    return m;
  };
  VariantStats base = variant_stats({gpu_run(512, 140e3), gpu_run(512, 150e3), gpu_run(512, 130e3)});
  VariantStats fixed = variant_stats({gpu_run(0, 2e3), gpu_run(0, 0), gpu_run(0, 3e3)});
  ASSERT_TRUE(base.host_memory_growth);
  EXPECT_NEAR(*base.host_memory_growth, 140e3, 1);
  Judgement j = judge_memory(base, fixed);
  EXPECT_EQ(j.verdict, Verdict::Confirmed) << j.reason;
  EXPECT_NE(j.reason.find("host rss_bytes"), std::string::npos) << j.reason;
  // Host memory that grows in both variants does not confirm.
  VariantStats still = variant_stats({gpu_run(0, 140e3), gpu_run(0, 150e3), gpu_run(0, 130e3)});
  EXPECT_EQ(judge_memory(base, still).verdict, Verdict::NotConfirmed);
  // Without a host series in the fixed variant, only the GPU series is judged.
  VariantStats no_host = variant_stats({run_of(steps_around(0.01)), run_of(steps_around(0.01))});
  EXPECT_EQ(judge_memory(base, no_host).verdict, Verdict::NotConfirmed);
}

TEST(RuntimeStats, MemoryVerdicts) {
  auto runs = [](double slope) {
    return variant_stats({run_of(steps_around(0.01), 0, slope), run_of(steps_around(0.01), 0, slope * 1.1),
                          run_of(steps_around(0.01), 0, slope * 0.9)});
  };
  VariantStats growing = runs(100 * 1024), flat = runs(0), slow_growth = runs(60 * 1024);
  Judgement j = judge_memory(growing, flat);
  EXPECT_EQ(j.verdict, Verdict::Confirmed) << j.reason;
  EXPECT_NE(j.reason.find("KiB"), std::string::npos);
  EXPECT_EQ(judge_finding("MEM001", growing, flat, "cpu").verdict, Verdict::Confirmed);
  EXPECT_EQ(judge_memory(flat, flat).verdict, Verdict::NotConfirmed);
  EXPECT_EQ(judge_memory(growing, slow_growth).verdict, Verdict::NotConfirmed);
  EXPECT_EQ(judge_memory(runs(512), flat).verdict, Verdict::NotConfirmed);  // below 1 KiB: noise
  EXPECT_EQ(judge_memory(growing, variant_stats({run_of(steps_around(0.01))})).verdict,
            Verdict::Inconclusive);
}

TEST(RuntimeStats, HarnessJson) {
  std::string error;
  auto h = parse_harness_json(R"({"schema":1,"completed":true,"reason":"steps reached","warmup":5,
    "steps":[{"step":5,"wall_s":0.01,"wait_s":0.002,"cuda_allocated":1000,"cuda_max_allocated":2000,
              "rss_bytes":5000},
             {"step":6,"wall_s":0.012,"wait_s":null,"cuda_allocated":1100,"cuda_max_allocated":2000,
              "rss_bytes":null}],
    "device":"cuda","gpu_name":"NVIDIA H100","torch_version":"2.4.0","python":"3.11.7","pid":42,
    "source":"dataloader"})",
                              &error);
  ASSERT_TRUE(h) << error;
  EXPECT_TRUE(h->completed);
  ASSERT_EQ(h->steps.size(), 2u);
  EXPECT_DOUBLE_EQ(h->steps[1].wall_s, 0.012);
  EXPECT_FALSE(h->steps[1].wait_s);
  EXPECT_EQ(*h->gpu_name, "NVIDIA H100");
  RunMeasure m = measure_run(*h, {}, std::nullopt, 1.0);
  EXPECT_EQ(m.memory_source, "cuda_allocated");
  EXPECT_EQ(m.memory.size(), 2u);

  EXPECT_FALSE(parse_harness_json("not json", &error));
  EXPECT_FALSE(parse_harness_json(R"({"schema":2,"completed":true,"steps":[]})", &error));
  EXPECT_NE(error.find("schema 2"), std::string::npos);
  EXPECT_FALSE(parse_harness_json(R"({"schema":1,"completed":true,"steps":[{"step":1}]})", &error));
}

TEST(RuntimeStats, GpuWindowAndFormatting) {
  HarnessResult h;
  h.device = "cuda";
  for (int i = 0; i < 10; ++i) h.steps.push_back(StepRecord{i, 0.1, 0.0, std::nullopt, std::nullopt, 1e6});
  std::vector<GpuSample> samples;
  for (int i = 0; i <= 40; ++i) samples.push_back(GpuSample{i * 0.1, 0, i < 20 ? 0u : 90u, 0, 0, {}});
  // The run lasted 4 s, the measured steps 1 s: only the last ~1.25 s of samples count.
  RunMeasure m = measure_run(h, samples, 0u, 4.0);
  EXPECT_EQ(m.memory_source, "rss_bytes");
  RunStats r = run_stats(m);
  ASSERT_TRUE(r.gpu_util_median);
  EXPECT_DOUBLE_EQ(*r.gpu_util_median, 90);
  EXPECT_EQ(format_bytes(2048), "2.0 KiB");
  EXPECT_EQ(format_bytes(-0.2), "0 B");
  EXPECT_EQ(format_duration(0.0123), "12.3 ms");
  EXPECT_EQ(format_duration_range(0.0121, 0.0126), "12.1–12.6 ms");
  EXPECT_EQ(format_duration_range(0.0009, 0.0012), "900 µs–1.20 ms");
}

// --- the process runner ----------------------------------------------------------------------

TEST(RuntimeProcess, TimeoutKillsTheWholeGroup) {
  Scratch s;
  fs::path pidfile = s.path() / "bg.pid";
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 1000 & echo $! > " + pidfile.string() + "; sleep 1000"};
  spec.timeout_s = 0.5;
  spec.kill_grace_s = 2;
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_process(spec);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(took, 5.0);
  EXPECT_NE(r.describe().find("timed out"), std::string::npos);
  pid_t bg = read_pid(pidfile);
  ASSERT_GT(bg, 0);
  EXPECT_TRUE(pid_gone(bg)) << "background sleep " << bg << " survived";
  EXPECT_TRUE(process_group_members(r.pid).empty());
}

TEST(RuntimeProcess, GrandchildIgnoringSigtermGetsSigkill) {
  Scratch s;
  fs::path pidfile = s.path() / "gc.pid", ready = s.path() / "ready";
  ProcessSpec spec;
  // The leader exits at once (status 0), leaving a grandchild that ignores SIGTERM.
  spec.argv = {"/bin/sh", "-c",
               "sh -c 'trap \"\" TERM; echo up > " + ready.string() + "; exec sleep 1000' & echo $! > " +
                   pidfile.string() + "; while [ ! -s " + ready.string() +
                   " ]; do sleep 0.02; done; exit 0"};
  spec.timeout_s = 20;
  spec.kill_grace_s = 0.3;
  ProcessResult r = run_process(spec);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.leftover, 1u);
  EXPECT_TRUE(r.sigkill_needed);
  pid_t gc = read_pid(pidfile);
  ASSERT_GT(gc, 0);
  EXPECT_TRUE(pid_gone(gc)) << "grandchild " << gc << " survived";
  EXPECT_TRUE(process_group_members(r.pid).empty());
}

TEST(RuntimeProcess, CrashStderrTailIsCaptured) {
  Scratch s;
  ProcessSpec spec;
  std::string many;
  for (int i = 0; i < 100; ++i) many += "echo line" + std::to_string(i) + " >&2; ";
  spec.argv = {"/bin/sh", "-c",
               many + "echo 'Traceback (most recent call last):' >&2; echo 'RuntimeError: boom' >&2; "
                      "echo out; exit 3"};
  spec.stdout_path = (s.path() / "out").string();
  spec.stderr_path = (s.path() / "err").string();
  ProcessResult r = run_process(spec);
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.leftover, 0u);
  EXPECT_EQ(r.describe(), "exit code 3");
  std::string tail = file_tail(spec.stderr_path, 5);
  EXPECT_NE(tail.find("RuntimeError: boom"), std::string::npos);
  EXPECT_EQ(tail.find("line10\n"), std::string::npos);  // only the tail
  EXPECT_EQ(read_file(spec.stdout_path), "out\n");

  spec.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  r = run_process(spec);
  EXPECT_EQ(r.term_signal, SIGSEGV);
  EXPECT_NE(r.describe().find("SIGSEGV"), std::string::npos);
}

TEST(RuntimeProcess, StartFailuresAndEnvironment) {
  ProcessSpec spec;
  spec.argv = {"gpulint-no-such-program-xyz"};
  ProcessResult r = run_process(spec);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("not found"), std::string::npos);

  Scratch s;
  spec.argv = {"/bin/sh", "-c", "pwd; echo \"$FOO\""};
  spec.env = std::vector<std::string>{"FOO=bar", "PATH=/usr/bin:/bin"};
  spec.cwd = s.path().string();
  spec.stdout_path = (s.path() / "o").string();
  r = run_process(spec);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(read_file(s.path() / "o"), fs::canonical(s.path()).string() + "\nbar\n");

  spec.cwd = (s.path() / "missing").string();
  r = run_process(spec);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("directory"), std::string::npos);
}

TEST(RuntimeProcess, InterruptKillsTheGroup) {
  clear_interrupt();
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 1000 & sleep 1000"};
  spec.timeout_s = 60;
  spec.kill_grace_s = 1;
  std::thread t([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    request_interrupt();
  });
  ProcessResult r = run_process(spec);
  t.join();
  clear_interrupt();
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(process_group_members(r.pid).empty());
}

TEST(RuntimeProcess, TempDirIsRemoved) {
  Scratch outer;
  EnvGuard tmp("TMPDIR", outer.path().string());
  std::string error;
  fs::path made;
  {
    auto d = TempDir::create("gpulint-confirm-", &error);
    ASSERT_TRUE(d) << error;
    made = d->path();
    EXPECT_EQ(fs::path(made).parent_path(), outer.path());
    write_file(made / "a" / "b" / "c.txt", "x");
    fs::permissions(made / "a" / "b", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_TRUE(fs::exists(made / "a" / "b" / "c.txt"));
  }
  EXPECT_FALSE(fs::exists(made));
  ::setenv("TMPDIR", (outer.path() / "nope").c_str(), 1);
  EXPECT_FALSE(TempDir::create("x-", &error));
  EXPECT_NE(error.find("nope"), std::string::npos);
}

TEST(RuntimeProcess, FindExecutable) {
  auto sh = find_executable("sh");
  ASSERT_TRUE(sh);
  EXPECT_EQ(fs::path(*sh).filename(), "sh");
  EXPECT_TRUE(find_executable("/bin/sh"));
  EXPECT_FALSE(find_executable("/nonexistent/python"));
}

// --- NVML ------------------------------------------------------------------------------------

TEST(RuntimeGpu, SamplerWithoutDriverReportsUnavailable) {
  GpuSampler missing("libgpulint-no-such-nvml.so.1");
  EXPECT_FALSE(missing.available());
  EXPECT_EQ(missing.status(), "no NVIDIA driver: running on the CPU");
  EXPECT_TRUE(missing.devices().empty());
  missing.start(::getpid());
  EXPECT_TRUE(missing.stop().empty());

  // The real library name: whatever this machine has, no crash, a status line, and samples
  // only when a driver is there.
  GpuSampler real;
  EXPECT_FALSE(real.status().empty());
  real.start(::getpid());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto samples = real.stop();
  if (real.available()) {
    EXPECT_GE(samples.size(), 2u * real.devices().size());
  } else {
    EXPECT_TRUE(samples.empty());
  }
}

// --- building blocks of the command ----------------------------------------------------------

TEST(RuntimeConfirm, LoopLines) {
  std::string text =
      "import torch\n"          // 1
      "for epoch in range(3):\n"  // 2
      "    for x in data:\n"      // 3
      "        y = f(x)\n"        // 4
      "\n"                        // 5
      "        # c\n"             // 6
      "        losses.append(\n"  // 7
      "            y)\n"          // 8
      "    print(epoch)\n"        // 9
      "done = 1\n";               // 10
  EXPECT_EQ(enclosing_loop_line(text, 3), 3u);
  EXPECT_EQ(enclosing_loop_line(text, 7), 3u);
  EXPECT_EQ(enclosing_loop_line(text, 8), 2u);
  EXPECT_FALSE(enclosing_loop_line(text, 9));
  EXPECT_FALSE(enclosing_loop_line(text, 0));
  std::string fixed = "import os\n" + text;
  EXPECT_EQ(map_line(text, 3, fixed), 4u);
  EXPECT_EQ(map_line(text, 3, text), 3u);
  EXPECT_EQ(map_line(text, 3, "nothing\n"), 3u);
}

TEST(RuntimeConfirm, ChildEnvironment) {
  HarnessEnv h;
  h.harness_dir = "/t/h";
  h.out_json = "/t/o.json";
  h.warmup = 2;
  h.steps = 7;
  h.script_dir = "/src";
  h.loop_line = 12;
  auto env = child_environment({"PATH=/bin", "PYTHONPATH=/mine", "GPULINT_HARNESS_PID=9", "HOME=/h"}, h);
  auto has = [&](const std::string& e) { return std::find(env.begin(), env.end(), e) != env.end(); };
  EXPECT_TRUE(has("PATH=/bin"));
  EXPECT_TRUE(has("HOME=/h"));
  EXPECT_TRUE(has("PYTHONPATH=/t/h:/mine"));
  EXPECT_TRUE(has("GPULINT_HARNESS_OUT=/t/o.json"));
  EXPECT_TRUE(has("GPULINT_HARNESS_WARMUP=2"));
  EXPECT_TRUE(has("GPULINT_HARNESS_STEPS=7"));
  EXPECT_TRUE(has("GPULINT_HARNESS_SCRIPT_DIR=/src"));
  EXPECT_TRUE(has("GPULINT_HARNESS_LOOP_LINE=12"));
  EXPECT_FALSE(has("GPULINT_HARNESS_PID=9"));
  auto env2 = child_environment({"PATH=/bin"}, HarnessEnv{"/h", "/o", 1, 1, "/s", std::nullopt, true});
  EXPECT_NE(std::find(env2.begin(), env2.end(), "PYTHONPATH=/h"), env2.end());
  EXPECT_NE(std::find(env2.begin(), env2.end(), "GPULINT_HARNESS_SYNC=1"), env2.end());
}

TEST(RuntimeReport, HtmlIsSelfContainedWithSvg) {
  ConfirmReport r;
  r.script = "train.py";
  r.repeats = 2;
  r.warmup = 1;
  r.steps = 12;
  r.device = "cpu";
  r.gpu_status = "no NVIDIA driver: running on the CPU";
  FindingEntry f;
  f.code = "DL001";
  f.message = "`DataLoader` has <no> workers";
  f.line = 3;
  f.column = 9;
  f.variant = 1;
  r.findings.push_back(f);
  for (int vi = 0; vi < 2; ++vi) {
    VariantEntry v;
    v.name = vi == 0 ? "baseline" : "DL001:3";
    v.baseline = vi == 0;
    v.findings = vi == 0 ? std::vector<std::size_t>{} : std::vector<std::size_t>{0};
    v.diff = vi == 0 ? "" : "-a\n+b <script>\n";
    std::vector<RunMeasure> ms;
    for (int round = 1; round <= 2; ++round) {
      RunEntry e;
      e.round = round;
      e.ok = true;
      e.status = "ok";
      e.measure = run_of(steps_around(vi == 0 ? 0.01 : 0.004, 12), 0.4);
      e.stats = run_stats(e.measure);
      e.samples.push_back(GpuSample{0.0, 0, 50, 10, 1000, {}});
      ms.push_back(e.measure);
      v.runs.push_back(std::move(e));
    }
    v.stats = variant_stats(ms);
    r.variants.push_back(std::move(v));
  }
  r.variants[1].speed = judge_speed(r.variants[0].stats, r.variants[1].stats);
  r.findings[0].judgement = judge_finding("DL001", r.variants[0].stats, r.variants[1].stats, "cpu");

  std::string html = render_html(r);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);  // the diff's "<script>" is escaped
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_NE(html.find("confirmed"), std::string::npos);
  EXPECT_NE(html.find("No GPU utilisation chart"), std::string::npos);
  EXPECT_NE(html.find("&lt;no&gt;"), std::string::npos);

  // With a GPU: the utilisation chart instead of the note.
  r.nvml = true;
  r.gpus.push_back(GpuDeviceInfo{0, "NVIDIA H100", 80ull << 30});
  std::string html_gpu = render_html(r);
  EXPECT_EQ(html_gpu.find("No GPU utilisation chart"), std::string::npos);
  EXPECT_NE(html_gpu.find("GPU utilisation: baseline vs DL001:3"), std::string::npos);

  std::string table = render_table(r);
  EXPECT_NE(table.find("DL001 confirmed"), std::string::npos) << table;
  EXPECT_NE(table.find("baseline"), std::string::npos);
  nlohmann::json j = report_json(r);
  EXPECT_EQ(j["variants"].size(), 2u);
  EXPECT_EQ(j["findings"][0]["verdict"], "confirmed");
  EXPECT_EQ(j["variants"][1]["stats"]["run_medians_s"].size(), 2u);
}

// --- the whole command -----------------------------------------------------------------------

namespace {

const char* kDl001Script =
    "import torch\n"
    "from torch.utils.data import DataLoader, Dataset\n"
    "\n"
    "class Items(Dataset):\n"
    "    def __len__(self):\n"
    "        return 512\n"
    "    def __getitem__(self, i):\n"
    "        return torch.randn(8), torch.randn(1)\n"
    "\n"
    "dataset = Items()\n"
    "loader = DataLoader(dataset, batch_size=16, shuffle=True)\n"
    "model = torch.nn.Linear(8, 1)\n"
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "for x, y in loader:\n"
    "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
    "    optimizer.zero_grad()\n"
    "    loss.backward()\n"
    "    optimizer.step()\n";

// A fake interpreter: checks the harness contract, then writes the harness JSON as if it had
// timed the loop (its own python3 runs without the harness on PYTHONPATH): 10 ms steps, 4 ms once `num_workers` is in the script (DL001's fix).
std::string fake_python(const std::string& mode) {
  return R"(#!/bin/sh
script="$1"
[ -n "$GPULINT_HARNESS_OUT" ] || { echo "no GPULINT_HARNESS_OUT" >&2; exit 9; }
[ -f "${PYTHONPATH%%:*}/sitecustomize.py" ] || { echo "harness not on PYTHONPATH" >&2; exit 9; }
[ -n "$GPULINT_HARNESS_SCRIPT_DIR" ] || exit 9
echo "$script" >> "$GPULINT_HARNESS_SCRIPT_DIR/scripts_run.txt"
mode=)" + mode + R"(
if [ "$mode" = crash ]; then
  echo "Traceback (most recent call last):" >&2
  echo "RuntimeError: CUDA error: boom" >&2
  exit 1
fi
if [ "$mode" = hang ]; then sleep 1000; fi
if grep -q num_workers "$script"; then wall=0.004; else wall=0.010; fi
exec env -u PYTHONPATH python3 - "$wall" "$mode" <<'PY'
import json, os, sys
wall, mode = float(sys.argv[1]), sys.argv[2]
n = int(os.environ["GPULINT_HARNESS_STEPS"])
w = int(os.environ["GPULINT_HARNESS_WARMUP"])
steps = [] if mode == "noloop" else [
    {"step": w + i, "wall_s": wall * (1 + 0.01 * (i % 3 - 1)), "wait_s": wall * 0.6,
     "cuda_allocated": None, "cuda_max_allocated": None, "rss_bytes": 10**8}
    for i in range(n)]
doc = {"schema": 1, "completed": mode != "noloop",
       "reason": "no loop found" if mode == "noloop" else "steps reached",
       "warmup": w, "steps": steps, "device": "cpu", "gpu_name": None, "torch_version": "2.4.0",
       "python": "3.11.7", "pid": os.getpid(), "source": "dataloader"}
json.dump(doc, open(os.environ["GPULINT_HARNESS_OUT"], "w"))
PY
)";
}

struct Fixture {
  Scratch s;
  fs::path script, python, tmp;
  std::optional<EnvGuard> tmpdir;
  ConfirmOptions o;
  std::ostringstream out, err;

  explicit Fixture(const std::string& mode, const std::string& text = kDl001Script) {
    script = s.path() / "proj" / "train.py";
    write_file(script, text);
    python = s.path() / "bin" / "fake-python";
    write_file(python, fake_python(mode), true);
    tmp = s.path() / "tmp";
    fs::create_directories(tmp);
    tmpdir.emplace("TMPDIR", tmp.string());
    o.script = script.string();
    o.python = python.string();
    o.repeats = 2;
    o.warmup = 1;
    o.steps = 12;
    o.timeout_s = 30;
    o.kill_grace_s = 0.5;
    o.quiet = false;
  }
  int run() { return run_confirm(o, out, err); }
  bool tmp_empty() const { return fs::is_empty(tmp); }
};

}  // namespace

TEST(RuntimeConfirm, FakePythonConfirmsDl001) {
  ASSERT_FALSE(harness_files().empty());
  Fixture fx("ok");
  fx.o.json_path = (fx.s.path() / "report.json").string();
  fx.o.html_path = (fx.s.path() / "report.html").string();
  std::string before = read_file(fx.script);
  int rc = fx.run();
  EXPECT_EQ(rc, 0) << fx.err.str();
  std::string out = fx.out.str();
  EXPECT_NE(out.find("DL001 confirmed"), std::string::npos) << out << fx.err.str();
  EXPECT_NE(out.find("baseline"), std::string::npos);
  EXPECT_EQ(read_file(fx.script), before);  // the user's file is never modified
  EXPECT_TRUE(fx.tmp_empty());              // the temp dir is gone
  // Variants alternate A B A B; every run used a copy, never the user's file.
  std::string runs = read_file(fx.script.parent_path() / "scripts_run.txt");
  EXPECT_EQ(runs.find(fx.script.string() + "\n"), std::string::npos);
  std::istringstream lines(runs);
  std::vector<std::string> order;
  for (std::string l; std::getline(lines, l);) order.push_back(fs::path(l).parent_path().filename());
  ASSERT_GE(order.size(), 4u);
  EXPECT_EQ(order[0], "baseline");
  EXPECT_NE(order[1], "baseline");
  EXPECT_EQ(order[order.size() / 2], "baseline");

  nlohmann::json j = nlohmann::json::parse(read_file(fx.o.json_path));
  EXPECT_EQ(j["variants"][0]["name"], "baseline");
  EXPECT_EQ(j["variants"][0]["runs"].size(), 2u);
  bool dl001 = false;
  for (const auto& f : j["findings"])
    if (f["code"] == "DL001") {
      dl001 = true;
      EXPECT_EQ(f["verdict"], "confirmed");
      EXPECT_NEAR(f["judgement"]["speedup"].get<double>(), 2.5, 0.1);
    }
  EXPECT_TRUE(dl001);
  std::string html = read_file(fx.o.html_path);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(RuntimeConfirm, CrashingScriptExits2WithStderrTail) {
  Fixture fx("crash");
  EXPECT_EQ(fx.run(), 2);
  EXPECT_NE(fx.err.str().find("crashed (exit code 1)"), std::string::npos) << fx.err.str();
  EXPECT_NE(fx.err.str().find("RuntimeError: CUDA error: boom"), std::string::npos);
  EXPECT_TRUE(fx.tmp_empty());
}

TEST(RuntimeConfirm, ScriptThatNeverReachesItsLoop) {
  Fixture fx("noloop");
  EXPECT_EQ(fx.run(), 2);
  EXPECT_NE(fx.err.str().find("without reaching a training loop"), std::string::npos)
      << fx.err.str();
  EXPECT_TRUE(fx.tmp_empty());
}

TEST(RuntimeConfirm, HangingScriptTimesOut) {
  Fixture fx("hang");
  fx.o.timeout_s = 1;
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(fx.run(), 2);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
  EXPECT_NE(fx.err.str().find("did not finish within --timeout 1 s"), std::string::npos)
      << fx.err.str();
  EXPECT_TRUE(fx.tmp_empty());
}

TEST(RuntimeConfirm, BadInput) {
  Fixture fx("ok");
  fx.o.python = (fx.s.path() / "no-python").string();
  EXPECT_EQ(fx.run(), 2);
  EXPECT_NE(fx.err.str().find("--python"), std::string::npos);
  Fixture fx2("ok");
  fx2.o.script = (fx2.s.path() / "missing.py").string();
  EXPECT_EQ(fx2.run(), 2);
  // No finding with a fix: nothing to run, exit 0.
  Fixture fx3("ok", "print('hello')\n");
  EXPECT_EQ(fx3.run(), 0);
  EXPECT_NE(fx3.out.str().find("nothing to run"), std::string::npos);
}

// The real harness (runtime_check/harness/, embedded) with python3 and a stub `torch` next to
// the script: MEM001 in a loop no DataLoader drives (loop-line mode), measured through RSS.
TEST(RuntimeConfirm, RealHarnessConfirmsMem001OnStubTorch) {
  if (!find_executable("python3")) GTEST_SKIP() << "no python3";
  Fixture fx("ok",
             "import torch\n"
             "import torch.nn as nn\n"
             "\n"
             "model = nn.Linear(4, 1)\n"
             "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
             "losses = []\n"
             "for step in range(100000):\n"
             "    x = torch.randn(8, 4)\n"
             "    loss = model(x).pow(2).mean()\n"
             "    optimizer.zero_grad()\n"
             "    loss.backward()\n"
             "    optimizer.step()\n"
             "    losses.append(loss)\n");
  // A stub torch: every tensor that carries a "graph" holds 256 KiB; detach() drops it.
  write_file(fx.script.parent_path() / "torch" / "__init__.py",
             "__version__ = '0.0-stub'\n"
             "class Tensor:\n"
             "    def __init__(self, graph=True):\n"
             "        self.graph = bytearray(b'x' * 262144) if graph else None\n"
             "    def pow(self, n): return Tensor()\n"
             "    def mean(self): return Tensor()\n"
             "    def backward(self): pass\n"
             "    def detach(self): return Tensor(graph=False)\n"
             "    def item(self): return 0.0\n"
             "def randn(*shape): return Tensor(graph=False)\n"
             "from . import nn, optim\n");
  write_file(fx.script.parent_path() / "torch" / "nn.py",
             "import torch\n"
             "class Module:\n"
             "    def parameters(self): return []\n"
             "    def __call__(self, x): return torch.Tensor()\n"
             "class Linear(Module):\n"
             "    def __init__(self, *a): pass\n");
  write_file(fx.script.parent_path() / "torch" / "optim.py",
             "class SGD:\n"
             "    def __init__(self, params, lr=0.1): pass\n"
             "    def zero_grad(self): pass\n"
             "    def step(self): pass\n");
  fx.o.python = *find_executable("python3");
  fx.o.warmup = 2;
  fx.o.steps = 20;
  int rc = fx.run();
  EXPECT_EQ(rc, 0) << fx.err.str() << fx.out.str();
  std::string out = fx.out.str();
  EXPECT_NE(out.find("MEM001 confirmed"), std::string::npos) << out << fx.err.str();
  EXPECT_NE(fx.err.str().find("timing the loop on line 7"), std::string::npos) << fx.err.str();
  EXPECT_TRUE(fx.tmp_empty());
}

// --- C++ programs: whole runs ------------------------------------------------------------------

namespace {

WholeRunStats whole_of(std::vector<double> walls, std::optional<double> rss = std::nullopt,
                       std::optional<double> gpu = std::nullopt) {
  std::vector<WholeRunMeasure> runs;
  for (std::size_t i = 0; i < walls.size(); ++i) {
    WholeRunMeasure m;
    m.wall_s = walls[i];
    if (rss) m.peak_rss_bytes = *rss + 1000.0 * static_cast<double>(i);
    if (gpu) m.peak_gpu_bytes = *gpu;
    runs.push_back(m);
  }
  return whole_run_stats(runs);
}

}  // namespace

TEST(RuntimeStats, WholeRunStatistics) {
  WholeRunStats w = whole_of({2.0, 2.2, 2.1}, 100e6);
  EXPECT_EQ(w.runs, 3u);
  EXPECT_DOUBLE_EQ(w.median_s, 2.1);
  EXPECT_DOUBLE_EQ(w.min_s, 2.0);
  EXPECT_DOUBLE_EQ(w.max_s, 2.2);
  EXPECT_NEAR(w.spread, 0.2 / 2.1, 1e-12);
  ASSERT_TRUE(w.peak_rss_median);
  EXPECT_DOUBLE_EQ(*w.peak_rss_median, 100e6 + 1000);
  EXPECT_FALSE(w.peak_gpu_median);
  // Samples: utilisation of the primary GPU, peak per-process memory over every sample.
  std::vector<GpuSample> samples;
  for (int i = 0; i < 4; ++i) {
    GpuSample g;
    g.t_s = 0.05 * i;
    g.device = static_cast<unsigned>(i % 2);
    g.util_gpu = 10u * static_cast<unsigned>(i);
    g.process_memory = 1000u * static_cast<uint64_t>(i);
    samples.push_back(g);
  }
  WholeRunMeasure m = whole_run_measure(1.5, 2e6, samples, 0u);
  EXPECT_EQ(m.gpu_util, (std::vector<double>{0, 20}));
  ASSERT_TRUE(m.peak_gpu_bytes);
  EXPECT_DOUBLE_EQ(*m.peak_gpu_bytes, 3000);
  EXPECT_FALSE(whole_run_measure(1.5, std::nullopt, {}, std::nullopt).peak_gpu_bytes);
}

TEST(RuntimeStats, WholeRunSpeedVerdicts) {
  // Every fixed run beats every baseline run by more than either range: confirmed.
  Judgement j = judge_whole_run_speed(whole_of({2.0, 2.1, 2.05}), whole_of({1.0, 1.1, 1.05}));
  EXPECT_EQ(j.verdict, Verdict::Confirmed) << j.reason;
  ASSERT_TRUE(j.speedup);
  EXPECT_NEAR(*j.speedup, 2.05 / 1.05, 1e-9);
  EXPECT_NE(j.reason.find("per run (whole-run timing)"), std::string::npos) << j.reason;
  EXPECT_NE(j.reason.find("2.05 s"), std::string::npos) << j.reason;
  // Steady runs, gap within the spread: not confirmed.
  j = judge_whole_run_speed(whole_of({2.0, 2.1, 2.05}), whole_of({1.98, 2.02, 2.0}));
  EXPECT_EQ(j.verdict, Verdict::NotConfirmed) << j.reason;
  // Slower: not confirmed however noisy.
  j = judge_whole_run_speed(whole_of({1.0, 1.9}), whole_of({3.0, 3.1}));
  EXPECT_EQ(j.verdict, Verdict::NotConfirmed) << j.reason;
  // Faster median, noisy baseline: inconclusive.
  j = judge_whole_run_speed(whole_of({1.0, 3.0, 2.0}), whole_of({1.4, 1.5, 1.45}));
  EXPECT_EQ(j.verdict, Verdict::Inconclusive) << j.reason;
  EXPECT_NE(j.reason.find("too noisy"), std::string::npos);
  // One run: inconclusive, no kMinSteps rule for whole runs.
  j = judge_whole_run_speed(whole_of({2.0}), whole_of({1.0, 1.0}));
  EXPECT_EQ(j.verdict, Verdict::Inconclusive);
  EXPECT_NE(j.reason.find("--repeats"), std::string::npos) << j.reason;
  // A GPU-only fix measured on the CPU: inconclusive with the numbers.
  j = judge_whole_run_finding("DL002", whole_of({2.0, 2.1}), whole_of({1.0, 1.1}), "cpu");
  EXPECT_EQ(j.verdict, Verdict::Inconclusive);
  EXPECT_NE(j.reason.find("ran on the CPU"), std::string::npos) << j.reason;
  // Without NVML nobody knows whether the GPU was used: inconclusive too, and it says so.
  j = judge_whole_run_finding("DL002", whole_of({2.0, 2.1}), whole_of({1.0, 1.1}), "unknown");
  EXPECT_EQ(j.verdict, Verdict::Inconclusive);
  EXPECT_NE(j.reason.find("not known"), std::string::npos) << j.reason;
  EXPECT_EQ(judge_whole_run_finding("DL001", whole_of({2.0, 2.1}), whole_of({1.0, 1.1}), "unknown").verdict,
            Verdict::Confirmed);
  j = judge_whole_run_finding("DL002", whole_of({2.0, 2.1}), whole_of({1.0, 1.1}), "cuda");
  EXPECT_EQ(j.verdict, Verdict::Confirmed);
}

TEST(RuntimeStats, WholeRunMemoryVerdicts) {
  // GPU peaks 800 MiB vs 200 MiB: confirmed on the GPU series.
  Judgement j = judge_whole_run_memory(whole_of({2, 2}, 1e9, 800.0 * (1 << 20)),
                                       whole_of({2, 2}, 1e9, 200.0 * (1 << 20)));
  EXPECT_EQ(j.verdict, Verdict::Confirmed) << j.reason;
  EXPECT_NE(j.reason.find("peak GPU memory"), std::string::npos) << j.reason;
  // Flat GPU, lower host RSS: confirmed through RSS, with the GPU numbers.
  j = judge_whole_run_memory(whole_of({2, 2}, 900e6, 100e6), whole_of({2, 2}, 300e6, 100e6));
  EXPECT_EQ(j.verdict, Verdict::Confirmed) << j.reason;
  EXPECT_NE(j.reason.find("host RSS"), std::string::npos) << j.reason;
  EXPECT_NE(j.reason.find("GPU peaks"), std::string::npos) << j.reason;
  // Within the noise floor: not confirmed.
  j = judge_whole_run_memory(whole_of({2, 2}, 300.5e6), whole_of({2, 2}, 300e6));
  EXPECT_EQ(j.verdict, Verdict::NotConfirmed) << j.reason;
  // No readings at all: inconclusive.
  j = judge_whole_run_memory(whole_of({2, 2}), whole_of({2, 2}));
  EXPECT_EQ(j.verdict, Verdict::Inconclusive) << j.reason;
  EXPECT_EQ(judge_whole_run_finding("MEM001", whole_of({2, 2}, 900e6), whole_of({2, 2}, 300e6),
                                    "cpu")
                .verdict,
            Verdict::Confirmed);
}

namespace {

const char* kCppProgram =
    "// training \xc3\xa9t\xc3\xa9\n"  // UTF-8 before the finding: columns are code points
    "#include <torch/torch.h>\n"
    "int main() {\n"
    "  auto loader = torch::data::make_data_loader(std::move(ds), 64);\n"
    "  for (auto& b : *loader) {}\n"
    "}\n";

// What `gpulint check --output-format json` writes for `filename` holding `text` (kCppProgram,
// or another version of it) with the DL001 finding the C++ front end reports on its
// make_data_loader call: the report is written by check's own json writer
// (analyzer/output.h), so a change there shows here.
std::string cpp_report(const std::string& filename, const std::string& text = kCppProgram) {
  gpulint::SourceFile src(filename, text);
  const std::string call = "torch::data::make_data_loader";
  std::size_t at = text.find(call), batch = text.find("64)", at);
  EXPECT_NE(at, std::string::npos);
  gpulint::Diagnostic d;
  d.code = "DL001";
  d.message = "`make_data_loader` has no worker threads";
  d.start = static_cast<uint32_t>(at);
  d.end = static_cast<uint32_t>(at + call.size());
  d.fix = gpulint::Fix{gpulint::Applicability::Unsafe,
                       "Set `.workers(4)`",
                       {{static_cast<uint32_t>(batch), static_cast<uint32_t>(batch + 2),
                         "torch::data::DataLoaderOptions(64).workers(4)"}}};
  std::vector<gpulint::Diagnostic> diags{d};
  gpulint::OutputOptions o;
  o.format = gpulint::OutputFormat::Json;
  o.cwd = "/";
  std::ostringstream out;
  gpulint::write_diagnostics(out, {gpulint::FileDiagnostics{filename, &src, &diags}}, o);
  return out.str();
}

}  // namespace

TEST(RuntimeConfirm, DiagnosticsFromCheckJson) {
  Scratch s;
  fs::path file = s.path() / "proj" / "src" / "train.cpp";
  write_file(file, kCppProgram);
  gpulint::LoadError le;
  std::optional<gpulint::SourceFile> src =
      gpulint::SourceFile::from_bytes(file.string(), kCppProgram, &le);
  ASSERT_TRUE(src);
  std::vector<std::string> notes;
  std::string error;
  fs::path root = s.path() / "proj";
  // Made here: the same canonical path, also through a symbolic link.
  auto diags = diagnostics_from_json(cpp_report(file.string()), *src, file, root, &notes, &error);
  ASSERT_TRUE(diags) << error;
  EXPECT_EQ(diags->size(), 1u);
  EXPECT_TRUE(notes.empty());
  fs::create_directory_symlink(root, s.path() / "link");
  diags = diagnostics_from_json(cpp_report((s.path() / "link" / "src" / "train.cpp").string()),
                                *src, file, {}, &notes, &error);
  ASSERT_TRUE(diags) << error;
  EXPECT_EQ(diags->size(), 1u);
  diags = diagnostics_from_json(
      cpp_report((root / "src" / ".." / "src" / "train.cpp").string()), *src, file, {}, &notes,
      &error);
  ASSERT_TRUE(diags) << error;
  EXPECT_EQ(diags->size(), 1u);
  // Made in another checkout of the project: its path inside the project (src/train.cpp)
  // matches, with a note saying so.
  diags = diagnostics_from_json(cpp_report("/home/ci/checkout/src/train.cpp"), *src, file, root,
                                &notes, &error);
  ASSERT_TRUE(diags) << error;
  ASSERT_EQ(diags->size(), 1u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("another checkout"), std::string::npos) << notes[0];
  notes.clear();
  const gpulint::Diagnostic& d = (*diags)[0];
  EXPECT_EQ(d.code, "DL001");
  std::string text(kCppProgram);
  EXPECT_EQ(text.substr(d.start, d.end - d.start), "torch::data::make_data_loader");
  ASSERT_TRUE(d.fix);
  EXPECT_EQ(d.fix->applicability, gpulint::Applicability::Unsafe);
  ASSERT_EQ(d.fix->edits.size(), 1u);
  EXPECT_EQ(text.substr(d.fix->edits[0].start, d.fix->edits[0].end - d.fix->edits[0].start), "64");
  // Not without the project's root, and not a file of the same name elsewhere in a project
  // (a common tail of one component is not this file): an error naming it.
  EXPECT_FALSE(diagnostics_from_json(cpp_report("/home/ci/checkout/src/train.cpp"), *src, file,
                                     {}, &notes, &error));
  EXPECT_NE(error.find("/home/ci/checkout/src/train.cpp"), std::string::npos) << error;
  EXPECT_FALSE(diagnostics_from_json(cpp_report("/home/ci/checkout/train.cpp"), *src, file, root,
                                     &notes, &error));
  EXPECT_NE(error.find("no entry for"), std::string::npos) << error;
  // Another file of the report only: nothing for this one.
  diags = diagnostics_from_json(cpp_report("/x/other.cpp"), *src, file, root, &notes, &error);
  ASSERT_TRUE(diags);
  EXPECT_TRUE(diags->empty());
  // Two other checkouts: an error naming both.
  nlohmann::json two = nlohmann::json::parse(cpp_report("/a/src/train.cpp"));
  two.push_back(nlohmann::json::parse(cpp_report("/b/src/train.cpp"))[0]);
  EXPECT_FALSE(diagnostics_from_json(two.dump(), *src, file, root, &notes, &error));
  EXPECT_NE(error.find("/a/src/train.cpp"), std::string::npos) << error;
  // ... unless one of the entries is this very file.
  two.push_back(nlohmann::json::parse(cpp_report(file.string()))[0]);
  diags = diagnostics_from_json(two.dump(), *src, file, root, &notes, &error);
  ASSERT_TRUE(diags) << error;
  EXPECT_EQ(diags->size(), 1u);
  // A location outside the file: made from another version of it.
  EXPECT_FALSE(diagnostics_from_json(cpp_report(file.string(), std::string(36, '\n') + kCppProgram),
                                     *src, file, root, &notes, &error));
  EXPECT_NE(error.find("another version"), std::string::npos) << error;
  // Not the JSON of check.
  EXPECT_FALSE(diagnostics_from_json("{\"a\": 1}", *src, file, root, &notes, &error));
  EXPECT_NE(error.find("array"), std::string::npos);
  EXPECT_FALSE(diagnostics_from_json("[", *src, file, root, &notes, &error));
  // A code this gpulint does not know: left out with a note.
  nlohmann::json unknown = nlohmann::json::parse(cpp_report(file.string()));
  unknown[0]["code"] = "ZZ999";
  notes.clear();
  diags = diagnostics_from_json(unknown.dump(), *src, file, root, &notes, &error);
  ASSERT_TRUE(diags);
  EXPECT_TRUE(diags->empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("ZZ999"), std::string::npos);
}

// Every diagnostic of a real fixture, written by check's json writer and read back by
// confirm's reader: the same ranges, codes, messages and fixes.
TEST(RuntimeConfirm, DiagnosticsFromJsonReadsWhatCheckWrites) {
  std::size_t with_edits = 0;
  for (const char* name : {"fixtures/python/fixes/DEV001_model_and_batches.py",
                           "fixtures/python/fixes/DL001_multiline_no_trailing_comma.py",
                           "fixtures/python/fixes/DL002_multiline.py"}) {
    fs::path file = fs::path(GPULINT_SOURCE_DIR) / name;
    gpulint::LoadError le;
    std::optional<gpulint::SourceFile> src = gpulint::SourceFile::load(file.string(), &le);
    ASSERT_TRUE(src) << le.message;
    gpulint::FileReport report =
        gpulint::analyze_python(*src, gpulint::FileSettings::all_rules_enabled());
    ASSERT_FALSE(report.diagnostics.empty()) << name;
    gpulint::OutputOptions o;
    o.format = gpulint::OutputFormat::Json;
    o.cwd = GPULINT_SOURCE_DIR;
    std::ostringstream json;
    gpulint::write_diagnostics(json, {gpulint::FileDiagnostics{name, &*src, &report.diagnostics}}, o);
    std::vector<std::string> notes;
    std::string error;
    auto back = diagnostics_from_json(json.str(), *src, file, {}, &notes, &error);
    ASSERT_TRUE(back) << error;
    EXPECT_TRUE(notes.empty());
    ASSERT_EQ(back->size(), report.diagnostics.size()) << name;
    for (std::size_t i = 0; i < back->size(); ++i) {
      const gpulint::Diagnostic &a = report.diagnostics[i], &b = (*back)[i];
      EXPECT_EQ(b.code, a.code);
      EXPECT_EQ(b.message, a.message);
      EXPECT_EQ(b.start, a.start) << a.code;
      EXPECT_EQ(b.end, a.end) << a.code;
      ASSERT_EQ(b.fix.has_value(), a.fix.has_value()) << a.code;
      if (!a.fix) continue;
      EXPECT_EQ(b.fix->applicability, a.fix->applicability);
      EXPECT_EQ(b.fix->message, a.fix->message);
      std::vector<gpulint::Edit> ea = a.fix->edits;
      std::sort(ea.begin(), ea.end(), [](const auto& x, const auto& y) { return x.start < y.start; });
      ASSERT_EQ(b.fix->edits.size(), ea.size());
      for (std::size_t k = 0; k < ea.size(); ++k) {
        EXPECT_EQ(b.fix->edits[k].start, ea[k].start);
        EXPECT_EQ(b.fix->edits[k].end, ea[k].end);
        EXPECT_EQ(b.fix->edits[k].content, ea[k].content);
        ++with_edits;
      }
    }
  }
  EXPECT_GT(with_edits, 2u);  // the fixtures' fixes were read back, not only their locations
}

TEST(RuntimeConfirm, SourceTreeCopyAndRoot) {
  Scratch s;
  fs::path root = s.path() / "proj";
  write_file(root / "CMakeLists.txt", "project(x)\n");
  write_file(root / "src" / "train.cpp", "int main() {}\n");
  write_file(root / "src" / "deep" / "a.h", "#pragma once\n");
  write_file(root / ".git" / "HEAD", "ref: refs/heads/main\n");
  write_file(root / "build" / "CMakeCache.txt", "CMAKE_HOME_DIRECTORY=/elsewhere\n");
  write_file(root / "build" / "train", "binary");
  fs::create_symlink("src/train.cpp", root / "link.cpp");
  EXPECT_EQ(find_project_root(root / "src" / "train.cpp"), root);
  EXPECT_EQ(find_project_root(root / "src" / "deep" / "a.h"), root);
  // A src/CMakeLists.txt under the top-level one: the top level is the project.
  write_file(root / "src" / "CMakeLists.txt", "add_executable(train train.cpp)\n");
  EXPECT_EQ(find_project_root(root / "src" / "train.cpp"), root);
  fs::remove(root / "src" / "CMakeLists.txt");
  EXPECT_FALSE(find_project_root(s.path() / "elsewhere" / "x.cpp"));
  // A monorepo: the sub-project's own project() stops the search there, not at the top.
  fs::path mono = s.path() / "mono";
  write_file(mono / "CMakeLists.txt", "cmake_minimum_required(VERSION 3.16)\nproject(all)\n"
                                       "add_subdirectory(trainer)\n");
  write_file(mono / "trainer" / "CMakeLists.txt",
             "# project(not this one: a comment)\nPROJECT (trainer CXX)\nadd_subdirectory(src)\n");
  write_file(mono / "trainer" / "src" / "CMakeLists.txt", "add_executable(train train.cpp)\n");
  write_file(mono / "tools" / "CMakeLists.txt", "add_executable(tool tool.cpp) # project(x)\n");
  EXPECT_EQ(find_project_root(mono / "trainer" / "src" / "train.cpp"), mono / "trainer");
  EXPECT_EQ(find_project_root(mono / "tools" / "tool.cpp"), mono);
  EXPECT_TRUE(declares_project(mono / "trainer" / "CMakeLists.txt"));
  EXPECT_FALSE(declares_project(mono / "tools" / "CMakeLists.txt"));
  EXPECT_FALSE(declares_project(mono / "missing" / "CMakeLists.txt"));
  // Never above the repository holding the file.
  write_file(mono / "vendored" / "lib" / "CMakeLists.txt", "add_library(lib lib.cpp)\n");
  fs::create_directories(mono / "vendored" / ".git");
  EXPECT_EQ(find_project_root(mono / "vendored" / "lib" / "lib.cpp"), mono / "vendored" / "lib");
  EXPECT_TRUE(is_cpp_program("a/train.cpp"));
  EXPECT_TRUE(is_cpp_program("train.CC"));
  EXPECT_FALSE(is_cpp_program("train.py"));
  EXPECT_FALSE(is_cpp_program("kernel.cu"));

  std::vector<std::string> skipped;
  std::string error;
  fs::path copy = s.path() / "copy";
  ASSERT_TRUE(copy_source_tree(root, copy, &skipped, &error)) << error;
  EXPECT_EQ(read_file(copy / "src" / "train.cpp"), "int main() {}\n");
  EXPECT_TRUE(fs::exists(copy / "src" / "deep" / "a.h"));
  EXPECT_FALSE(fs::exists(copy / ".git"));
  EXPECT_FALSE(fs::exists(copy / "build"));
  EXPECT_EQ(skipped, std::vector<std::string>{"build"});
  EXPECT_TRUE(fs::is_symlink(copy / "link.cpp"));
  // A fix written into the copy never goes through a link back into the user's tree.
  fs::create_symlink(root / "src", copy / "linked_src");
  EXPECT_FALSE(write_file_in_copy(copy, fs::path("linked_src") / "train.cpp", "fixed\n", &error));
  EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
  EXPECT_TRUE(write_file_in_copy(copy, "link.cpp", "fixed\n", &error)) << error;
  EXPECT_FALSE(fs::is_symlink(copy / "link.cpp"));
  EXPECT_EQ(read_file(copy / "link.cpp"), "fixed\n");
  EXPECT_EQ(read_file(root / "src" / "train.cpp"), "int main() {}\n");  // the original is untouched
  EXPECT_FALSE(write_file_in_copy(copy, fs::path("..") / "escape.cpp", "x", &error));
  EXPECT_TRUE(write_file_in_copy(copy, fs::path("src") / "train.cpp", "int main() { return 0; }\n", &error));
  EXPECT_EQ(read_file(copy / "src" / "train.cpp"), "int main() { return 0; }\n");
  EXPECT_FALSE(copy_source_tree(s.path() / "missing", s.path() / "copy2", &skipped, &error));
  EXPECT_FALSE(error.empty());
}

namespace {

// A C++ "project" whose build and run are shell commands: the run is slow unless the copy of
// train.cpp carries the DL001 fix (`.workers(4)`), so the verdict is known in advance.
struct CppFixture {
  Scratch s;
  fs::path root, file, report, tmp;
  std::optional<EnvGuard> tmpdir;
  ConfirmOptions o;
  std::ostringstream out, err;

  CppFixture() {
    root = s.path() / "proj";
    file = root / "src" / "train.cpp";
    write_file(root / "CMakeLists.txt", "project(x)\n");
    write_file(file, kCppProgram);
    write_file(root / "build-old" / "CMakeCache.txt", "stale\n");
    report = s.path() / "findings.json";
    write_file(report, cpp_report("/elsewhere/proj/src/train.cpp"));
    tmp = s.path() / "tmp";
    fs::create_directories(tmp);
    tmpdir.emplace("TMPDIR", tmp.string());
    o.script = file.string();
    o.diagnostics_path = report.string();
    o.build_command = "mkdir -p out && cp src/train.cpp out/built.cpp && echo built";
    o.run_command =
        "echo \"$PWD\" >> " + (s.path() / "runs.txt").string() +
        "; if grep -q 'workers(4)' out/built.cpp; then sleep 0.05; else sleep 0.4; fi";
    o.given = {"--build", "--run", "--diagnostics"};
    o.repeats = 3;
    o.timeout_s = 30;
    o.kill_grace_s = 0.5;
  }
  int run() { return run_confirm(o, out, err); }
};

}  // namespace

TEST(RuntimeConfirm, CppProgramFromDiagnosticsReport) {
  CppFixture fx;
  fx.o.json_path = (fx.s.path() / "report.json").string();
  fx.o.html_path = (fx.s.path() / "report.html").string();
  std::string before = read_file(fx.file);
  int rc = fx.run();
  EXPECT_EQ(rc, 0) << fx.err.str();
  std::string out = fx.out.str();
  EXPECT_NE(out.find("(C++ program)"), std::string::npos) << out;
  EXPECT_NE(out.find("DL001 confirmed"), std::string::npos) << out << fx.err.str();
  EXPECT_NE(out.find("build: mkdir -p out"), std::string::npos) << out;
  EXPECT_NE(out.find("whole-run timing"), std::string::npos) << out;
  EXPECT_NE(out.find("Run time per round"), std::string::npos) << out;
  EXPECT_NE(out.find("not copied into the variants: build-old"), std::string::npos) << out;
  EXPECT_EQ(read_file(fx.file), before);
  EXPECT_TRUE(fs::is_empty(fx.tmp));
  // One warm-up run per variant, then A B A B; never in the user's tree.
  std::istringstream lines(read_file(fx.s.path() / "runs.txt"));
  std::vector<std::string> order;
  for (std::string l; std::getline(lines, l);) {
    EXPECT_EQ(l.find(fx.root.string()), std::string::npos) << l;
    order.push_back(fs::path(l).filename());
  }
  ASSERT_EQ(order.size(), 8u);  // (1 warm-up + 3 rounds) x 2 variants
  for (std::size_t i = 0; i < order.size(); ++i)
    EXPECT_EQ(order[i], i % 2 == 0 ? "baseline" : "v1") << i;

  nlohmann::json j = nlohmann::json::parse(read_file(fx.o.json_path));
  EXPECT_EQ(j["language"], "cpp");
  EXPECT_EQ(j["cpp"]["timing"], "whole runs");
  EXPECT_EQ(j["cpp"]["not_copied"], nlohmann::json::array({"build-old"}));
  ASSERT_EQ(j["variants"].size(), 2u);
  EXPECT_EQ(j["variants"][0]["runs"].size(), 4u);
  EXPECT_TRUE(j["variants"][0]["runs"][0]["warmup"].get<bool>());
  EXPECT_EQ(j["variants"][0]["whole_run_stats"]["runs"], 3);
  EXPECT_GT(j["variants"][0]["whole_run_stats"]["median_s"].get<double>(), 0.35);
  EXPECT_LT(j["variants"][1]["whole_run_stats"]["median_s"].get<double>(), 0.35);
  EXPECT_GT(j["variants"][0]["build_s"].get<double>(), 0);
  EXPECT_NE(j["variants"][1]["diff"].get<std::string>().find("workers(4)"), std::string::npos);
  EXPECT_NE(j["variants"][1]["diff"].get<std::string>().find("a/src/train.cpp"), std::string::npos);
  EXPECT_TRUE(j["variants"][0]["runs"][1]["peak_rss_bytes"].is_number());
  EXPECT_EQ(j["findings"][0]["verdict"], "confirmed");
  // What a whole run measured, none of the Python harness's step fields.
  std::set<std::string> option_keys;
  for (auto it = j["options"].begin(); it != j["options"].end(); ++it) option_keys.insert(it.key());
  EXPECT_EQ(option_keys, (std::set<std::string>{"build_timeout_s", "repeats", "timeout_s",
                                                "warmup_runs"}));
  EXPECT_EQ(j["options"]["warmup_runs"], 1);
  EXPECT_TRUE(j["device"].contains("gpu_name"));
  EXPECT_TRUE(j["device"]["gpu_name"].is_null());  // no GPU used here
  EXPECT_FALSE(j["device"].contains("torch_version"));
  EXPECT_FALSE(j["device"].contains("harness_source"));
  for (const auto& v : j["variants"]) {
    EXPECT_FALSE(v.contains("stats"));
    EXPECT_FALSE(v.contains("loop_line"));
    for (const auto& run : v["runs"])
      for (const char* key : {"harness", "measured_steps", "median_step_s", "data_wait_share",
                              "memory_growth_bytes_per_step", "memory_source"})
        EXPECT_FALSE(run.contains(key)) << key;
  }
  std::string html = read_file(fx.o.html_path);
  EXPECT_NE(html.find("(C++ program)"), std::string::npos);
  EXPECT_NE(html.find("Run time per round"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

// The C++ report names the GPUs the program used (NVML's names), in the table and the JSON.
TEST(RuntimeReport, CppReportNamesTheGpusUsed) {
  std::vector<GpuDeviceInfo> gpus = {{0, "NVIDIA H100 80GB HBM3", 80ull << 30},
                                     {1, "NVIDIA H200", 141ull << 30}};
  EXPECT_FALSE(gpu_names({}, gpus));
  EXPECT_EQ(gpu_names({1}, gpus), "NVIDIA H200");
  EXPECT_EQ(gpu_names({1, 0}, gpus), "NVIDIA H100 80GB HBM3, NVIDIA H200");
  EXPECT_EQ(gpu_names({3}, gpus), "GPU 3");
  ConfirmReport r;
  r.language = "cpp";
  r.script = "train.cpp";
  r.device = "cuda";
  r.gpu_name = gpu_names({0}, gpus);
  r.gpus = gpus;
  r.repeats = 3;
  r.warmup_runs = 1;
  r.build_timeout_s = 3600;
  VariantEntry base;
  base.name = "baseline";
  base.baseline = true;
  r.variants.push_back(base);
  EXPECT_NE(render_table(r).find("device: cuda (NVIDIA H100 80GB HBM3)"), std::string::npos)
      << render_table(r);
  nlohmann::json j = report_json(r);
  EXPECT_EQ(j["device"]["gpu_name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(j["options"]["build_timeout_s"], 3600);
  EXPECT_FALSE(j["options"].contains("steps"));
  EXPECT_FALSE(j["options"].contains("warmup"));
  EXPECT_NE(render_html(r).find("NVIDIA H100 80GB HBM3"), std::string::npos);
}

TEST(RuntimeConfirm, CppFailingBuildExits2WithItsOutput) {
  CppFixture fx;
  fx.o.build_command = "echo 'train.cpp:4:3: error: no member named frobnicate' >&2; exit 1";
  EXPECT_EQ(fx.run(), 2);
  EXPECT_NE(fx.err.str().find("the build failed (exit code 1)"), std::string::npos) << fx.err.str();
  EXPECT_NE(fx.err.str().find("no member named frobnicate"), std::string::npos) << fx.err.str();
  EXPECT_TRUE(fs::is_empty(fx.tmp));
  // Only the fixed copy fails to build: that variant fails, exit 2, the baseline still ran.
  CppFixture fx2;
  fx2.o.build_command = "if grep -q 'workers(4)' src/train.cpp; then echo broken; exit 3; fi";
  fx2.o.run_command = "true";
  fx2.o.repeats = 2;
  EXPECT_EQ(fx2.run(), 2);
  EXPECT_NE(fx2.err.str().find("does not build"), std::string::npos) << fx2.err.str();
  EXPECT_NE(fx2.out.str().find("failed"), std::string::npos) << fx2.out.str();
  EXPECT_TRUE(fs::is_empty(fx2.tmp));
}

TEST(RuntimeConfirm, CppBadInput) {
  {  // Neither the front end nor --diagnostics.
    CppFixture fx;
    fx.o.diagnostics_path.clear();
    fx.o.given = {"--build", "--run"};
    EXPECT_EQ(fx.run(), 2);
    EXPECT_NE(fx.err.str().find("without the C++ front end"), std::string::npos) << fx.err.str();
    EXPECT_NE(fx.err.str().find("--diagnostics"), std::string::npos);
  }
  {  // No --run.
    CppFixture fx;
    fx.o.run_command.clear();
    EXPECT_EQ(fx.run(), 2);
    EXPECT_NE(fx.err.str().find("--run"), std::string::npos) << fx.err.str();
  }
  {  // A Python-only option.
    CppFixture fx;
    fx.o.given.push_back("--steps");
    EXPECT_EQ(fx.run(), 2);
    EXPECT_NE(fx.err.str().find("--steps is for Python scripts"), std::string::npos) << fx.err.str();
  }
  {  // No CMakeLists.txt above the file and no --root.
    CppFixture fx;
    fs::remove(fx.root / "CMakeLists.txt");
    EXPECT_EQ(fx.run(), 2);
    EXPECT_NE(fx.err.str().find("--root"), std::string::npos) << fx.err.str();
    fx.o.root = (fx.root / "src").string();  // with --root: fine
    fx.o.build_command = "test -f train.cpp";
    fx.o.run_command = "true";
    std::ostringstream o2, e2;
    EXPECT_EQ(run_confirm(fx.o, o2, e2), 0) << e2.str();
  }
  {  // A report of another version of the file.
    CppFixture fx;
    write_file(fx.report, cpp_report(fx.file.string(), std::string(95, '\n') + kCppProgram));
    EXPECT_EQ(fx.run(), 2);
    EXPECT_NE(fx.err.str().find("another version"), std::string::npos) << fx.err.str();
  }
  {  // A hanging run: killed at --timeout, exit 2, nothing left.
    CppFixture fx;
    fx.o.run_command = "sleep 30";
    fx.o.timeout_s = 0.5;
    EXPECT_EQ(fx.run(), 2);
    EXPECT_NE(fx.err.str().find("did not finish within --timeout"), std::string::npos) << fx.err.str();
    EXPECT_TRUE(fs::is_empty(fx.tmp));
  }
  {  // C++-only options on a Python script.
    Scratch s;
    write_file(s.path() / "train.py", "print(1)\n");
    ConfirmOptions o;
    o.script = (s.path() / "train.py").string();
    o.given = {"--build"};
    std::ostringstream out, err;
    EXPECT_EQ(run_confirm(o, out, err), 2);
    EXPECT_NE(err.str().find("--build is for C++ programs"), std::string::npos) << err.str();
  }
}

// The table of Python-only and C++-only options is the subcommand's: every entry is one of its
// options, every other option applies to both kinds, and parsing fills `given` from it.
TEST(RuntimeConfirm, OptionScopesAreTheSubcommandsOptions) {
  CLI::App app("gpulint");
  ConfirmOptions o;
  CLI::App* c = add_confirm_subcommand(app, o);
  std::set<std::string> scoped;
  for (const ConfirmOptionScope& scope : confirm_option_scopes()) {
    std::string name(scope.name);
    EXPECT_NO_THROW(c->get_option(name)) << name;
    scoped.insert(name);
  }
  const std::set<std::string> both = {"script", "--repeats", "--timeout", "--json", "--html",
                                      "--select", "--quiet", "--help"};
  for (const CLI::Option* opt : c->get_options()) {
    std::string name = opt->get_name(false, false);
    if (!opt->get_lnames().empty()) name = "--" + opt->get_lnames().front();
    EXPECT_TRUE(scoped.count(name) || both.count(name)) << name << " is in no scope";
  }
  // `gpulint confirm train.cpp --steps 5 --build make` (CLI11 takes the arguments reversed).
  app.parse(std::vector<std::string>{"make", "--build", "5", "--steps", "train.cpp", "confirm"});
  EXPECT_EQ(o.given, (std::vector<std::string>{"--steps", "--build"}));
}

// The C++ front end's path: findings and the all-fixed text come from the analysis function
// the binary plugs in (a stand-in here: the Clang front end itself runs in e2e.confirm_cpp).
TEST(RuntimeConfirm, CppProgramFromFrontEnd) {
  CppFixture fx;
  fx.o.diagnostics_path.clear();
  fx.o.given = {"--build", "--run"};
  fx.o.repeats = 2;
  std::string seen_build_dir;
  int analyses = 0;
  fx.o.cpp_front_end = [&](const std::string& build_dir, std::string*) {
    seen_build_dir = build_dir;
    return std::function<gpulint::FileReport(const gpulint::SourceFile&,
                                             const gpulint::FileSettings&)>(
        [&](const gpulint::SourceFile& src, const gpulint::FileSettings& settings) {
          ++analyses;
          gpulint::FileReport r;
          r.language = gpulint::Language::Cpp;
          std::string_view text = src.text();
          std::size_t at = text.find(", 64)");
          if (at == std::string_view::npos || !settings.enabled.count("DL001")) return r;
          gpulint::Diagnostic d;
          d.code = "DL001";
          d.message = "no workers";
          d.start = static_cast<uint32_t>(text.find("torch::data::make_data_loader"));
          d.end = d.start + 29;
          gpulint::Fix f;
          f.applicability = gpulint::Applicability::Unsafe;
          f.message = "Set `.workers(4)`";
          f.edits.push_back({static_cast<uint32_t>(at + 2), static_cast<uint32_t>(at + 4),
                             "torch::data::DataLoaderOptions(64).workers(4)"});
          d.fix = std::move(f);
          r.diagnostics.push_back(std::move(d));
          return r;
        });
  };
  fx.o.build_dir = "/some/build";
  EXPECT_EQ(fx.run(), 0) << fx.err.str();
  EXPECT_EQ(seen_build_dir, "/some/build");
  EXPECT_GE(analyses, 2);  // the file, then the all-fixed text
  EXPECT_NE(fx.out.str().find("findings from: the C++ front end"), std::string::npos) << fx.out.str();
  EXPECT_NE(fx.out.str().find("DL001 confirmed"), std::string::npos) << fx.out.str();
  // A front end that cannot open the project: its error, exit 2.
  CppFixture fx2;
  fx2.o.diagnostics_path.clear();
  fx2.o.cpp_front_end = [](const std::string&, std::string* error) {
    *error = "/x/compile_commands.json: not valid JSON";
    return std::function<gpulint::FileReport(const gpulint::SourceFile&,
                                             const gpulint::FileSettings&)>();
  };
  EXPECT_EQ(fx2.run(), 2);
  EXPECT_NE(fx2.err.str().find("compile_commands.json: not valid JSON"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(fx2.tmp));
}
