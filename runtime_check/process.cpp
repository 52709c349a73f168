#include "runtime_check/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace gpulint::runtime_check {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::sig_atomic_t g_interrupt = 0;

extern "C" void on_interrupt_signal(int sig) { g_interrupt = sig; }

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void sleep_s(double s) {
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

void ensure_subreaper() {
#ifdef __linux__
  static bool done = false;
  if (!done) {
    // Orphaned members of the child's group (DataLoader workers whose parent died) are
    // re-parented to gpulint instead of init, so they can be reaped and counted.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    done = true;
  }
#endif
  struct sigaction sa {};
  if (::sigaction(SIGCHLD, nullptr, &sa) == 0 && sa.sa_handler == SIG_IGN) {
    // With SIGCHLD ignored the kernel reaps children itself and waitpid() cannot see them.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(SIGCHLD, &dfl, nullptr);
  }
}

struct Leader {
  pid_t pid = 0;
  bool alive = true;
  int status = 0;
};

// Reaps every exited child in the group (the leader too, whose status is kept).
void reap_group(pid_t pgid, Leader& leader) {
  while (true) {
    int st = 0;
    pid_t w = ::waitpid(-pgid, &st, WNOHANG);
    if (w > 0) {
      if (w == leader.pid) {
        leader.alive = false;
        leader.status = st;
      }
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    break;
  }
  if (leader.alive) {
    int st = 0;
    pid_t w = ::waitpid(leader.pid, &st, WNOHANG);
    if (w == leader.pid) {
      leader.alive = false;
      leader.status = st;
    } else if (w < 0 && errno == ECHILD) {
      leader.alive = false;  // reaped elsewhere: nothing more to learn
    }
  }
}

// True when nothing of the group is left; then also reaps the last zombies (a member can die
// between the reap and the look at /proc).
bool group_gone(pid_t pgid, Leader& leader) {
  if (leader.alive || !process_group_members(pgid).empty()) return false;
  reap_group(pgid, leader);
  return true;
}

// SIGTERM to the whole group, SIGKILL after `grace` s; reaps what it can. True when SIGKILL
// was needed.
bool terminate_group(pid_t pgid, Leader& leader, double grace) {
  ::kill(-pgid, SIGTERM);
  auto t0 = Clock::now();
  while (true) {
    reap_group(pgid, leader);
    if (group_gone(pgid, leader)) return false;
    if (seconds_since(t0) >= grace) break;
    sleep_s(0.01);
  }
  ::kill(-pgid, SIGKILL);
  t0 = Clock::now();
  while (seconds_since(t0) < 10) {
    reap_group(pgid, leader);
    if (group_gone(pgid, leader)) break;
    sleep_s(0.01);
  }
  return true;
}

int open_output(const std::string& path) {
  if (path.empty()) return ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

void write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

std::string signal_name(int sig) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    default: return fmt::format("signal {}", sig);
  }
}

std::string ProcessResult::describe() const {
  if (!started) return error.empty() ? std::string("not started") : error;
  if (interrupted) return "interrupted";
  if (timed_out) return fmt::format("timed out after {:.0f} s", wall_s);
  if (term_signal != 0) {
    std::string s = fmt::format("killed by signal {} ({})", term_signal, signal_name(term_signal));
    if (term_signal == SIGKILL) s += ": out of memory?";
    return s;
  }
  return fmt::format("exit code {}", exit_code);
}

ProcessResult run_process(const ProcessSpec& spec, const std::function<void(pid_t)>& on_start,
                          const std::function<void()>& on_end) {
  ProcessResult r;
  if (spec.argv.empty()) {
    r.error = "no command given";
    return r;
  }
  std::optional<std::string> exe = find_executable(spec.argv[0]);
  if (!exe) {
    r.error = spec.argv[0].find('/') != std::string::npos
                  ? fmt::format("`{}` is not an executable file", spec.argv[0])
                  : fmt::format("`{}` not found on PATH", spec.argv[0]);
    return r;
  }
  ensure_subreaper();

  // Everything the child needs is prepared before fork(): between fork and exec it only
  // makes async-signal-safe calls (gpulint may have other threads, e.g. the GPU sampler).
  std::vector<std::string> env_strings;
  if (spec.env) {
    env_strings = *spec.env;
  } else {
    for (char** e = environ; e && *e; ++e) env_strings.emplace_back(*e);
  }
  std::vector<char*> argvp, envp;
  for (const auto& a : spec.argv) argvp.push_back(const_cast<char*>(a.c_str()));
  argvp[0] = const_cast<char*>(spec.argv[0].c_str());
  argvp.push_back(nullptr);
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const char* exe_path = exe->c_str();
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();

  int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int out_fd = open_output(spec.stdout_path);
  int err_fd = spec.stderr_to_stdout ? ::dup(out_fd) : open_output(spec.stderr_path);
  if (err_fd >= 0) ::fcntl(err_fd, F_SETFD, FD_CLOEXEC);
  int status_pipe[2] = {-1, -1};
  if (in_fd < 0 || out_fd < 0 || err_fd < 0 || ::pipe2(status_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    r.error = fmt::format("cannot set up the child's input and output: {}", std::strerror(e));
    for (int fd : {in_fd, out_fd, err_fd, status_pipe[0], status_pipe[1]})
      if (fd >= 0) ::close(fd);
    return r;
  }

  auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD}) ::signal(sig, SIG_DFL);
    ::setpgid(0, 0);
    ::dup2(in_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    char tag = 'E';
    if (cwd && ::chdir(cwd) != 0) {
      tag = 'C';
    } else {
      ::execve(exe_path, argvp.data(), envp.data());
    }
    int e = errno;
    write_all(status_pipe[1], &tag, 1);
    write_all(status_pipe[1], &e, sizeof e);
    ::_exit(127);
  }
  int fork_errno = errno;
  ::close(status_pipe[1]);
  ::close(in_fd);
  ::close(out_fd);
  ::close(err_fd);
  if (pid < 0) {
    ::close(status_pipe[0]);
    r.error = fmt::format("cannot start a process: {}", std::strerror(fork_errno));
    return r;
  }
  ::setpgid(pid, pid);  // also in the child: whichever runs first (EACCES after exec is fine)

  // The pipe closes on exec (CLOEXEC): no bytes means the exec succeeded.
  char buf[1 + sizeof(int)];
  std::size_t got = 0;
  while (got < sizeof buf) {
    ssize_t n = ::read(status_pipe[0], buf + got, sizeof buf - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(status_pipe[0]);
  Leader leader{pid, true, 0};
  if (got == sizeof buf) {
    int e = 0;
    std::memcpy(&e, buf + 1, sizeof e);
    r.error = buf[0] == 'C'
                  ? fmt::format("cannot change to the directory {}: {}", spec.cwd, std::strerror(e))
                  : fmt::format("cannot run {}: {}", *exe, std::strerror(e));
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return r;
  }
  r.started = true;
  r.pid = pid;
  if (on_start) on_start(pid);

  while (true) {
    int st = 0;
    struct rusage usage {};
    pid_t w = ::wait4(pid, &st, WNOHANG, &usage);
    if (w == pid) {
      leader.alive = false;
      leader.status = st;
      // ru_maxrss is in KiB on Linux.
      if (usage.ru_maxrss > 0) r.max_rss_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0;
      break;
    }
    if (w < 0 && errno != EINTR) {
      leader.alive = false;  // ECHILD: cannot happen unless someone else reaped it
      break;
    }
    if (interrupt_requested()) {
      r.interrupted = true;
      break;
    }
    if (spec.timeout_s > 0 && seconds_since(t0) >= spec.timeout_s) {
      r.timed_out = true;
      break;
    }
    sleep_s(spec.poll_s);
  }
  r.wall_s = seconds_since(t0);
  if (leader.alive) r.sigkill_needed = terminate_group(pid, leader, spec.kill_grace_s);
  if (on_end) on_end();

  if (!leader.alive && leader.status != 0) {
    if (WIFEXITED(leader.status)) r.exit_code = WEXITSTATUS(leader.status);
    else if (WIFSIGNALED(leader.status)) r.term_signal = WTERMSIG(leader.status);
  } else if (!leader.alive) {
    r.exit_code = 0;
  }
  if (r.timed_out || r.interrupted) {
    // The signal that ended it was ours: not the script's doing.
    r.term_signal = 0;
    r.exit_code = -1;
  }

  // Whatever the group left behind (workers of a script that exited without joining them).
  reap_group(pid, leader);
  std::vector<pid_t> left = process_group_members(pid);
  if (!left.empty()) {
    r.leftover = left.size();
    if (terminate_group(pid, leader, spec.kill_grace_s)) r.sigkill_needed = true;
  }
  return r;
}

std::vector<pid_t> process_group_members(pid_t pgid) {
  std::vector<pid_t> out;
#ifdef __linux__
  DIR* d = ::opendir("/proc");
  if (d != nullptr) {
    while (dirent* e = ::readdir(d)) {
      const char* name = e->d_name;
      if (name[0] < '0' || name[0] > '9') continue;
      char path[300];
      std::snprintf(path, sizeof path, "/proc/%s/stat", name);
      int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char buf[512];
      ssize_t n = ::read(fd, buf, sizeof buf - 1);
      ::close(fd);
      if (n <= 0) continue;
      buf[n] = '\0';
      // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
      char* close_paren = std::strrchr(buf, ')');
      if (close_paren == nullptr) continue;
      char state = 0;
      long ppid = 0, pgrp = 0;
      if (std::sscanf(close_paren + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
      if (pgrp != pgid || state == 'Z' || state == 'X' || state == 'x') continue;
      out.push_back(static_cast<pid_t>(std::atol(name)));
    }
    ::closedir(d);
    return out;
  }
#endif
  if (::kill(-pgid, 0) == 0) out.push_back(pgid);
  return out;
}

std::optional<std::string> find_executable(const std::string& name) {
  auto usable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    std::error_code ec;
    fs::path p = fs::absolute(name, ec);
    if (ec) p = name;
    if (usable(p)) return p.lexically_normal().string();
    return std::nullopt;
  }
  const char* env_path = std::getenv("PATH");
  std::string path = env_path ? env_path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t colon = path.find(':', pos);
    std::string dir = path.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    if (dir.empty()) dir = ".";
    fs::path candidate = fs::path(dir) / name;
    if (usable(candidate)) {
      std::error_code ec;
      fs::path abs = fs::absolute(candidate, ec);
      return (ec ? candidate : abs).lexically_normal().string();
    }
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  return std::nullopt;
}

std::string file_tail(const std::string& path, std::size_t max_lines, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size <= 0) return "";
  std::streamoff start = size > static_cast<std::streamoff>(max_bytes)
                             ? size - static_cast<std::streamoff>(max_bytes)
                             : 0;
  in.seekg(start);
  std::string data(static_cast<std::size_t>(size - start), '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<std::size_t>(in.gcount()));
  if (start > 0) {
    std::size_t nl = data.find('\n');
    data = nl == std::string::npos ? data : data.substr(nl + 1);
  }
  while (!data.empty() && (data.back() == '\n' || data.back() == '\r')) data.pop_back();
  std::size_t lines = 0;
  std::size_t cut = data.size();
  while (cut > 0) {
    std::size_t nl = data.rfind('\n', cut - 1);
    ++lines;
    if (nl == std::string::npos) {
      cut = 0;
      break;
    }
    if (lines == max_lines) {
      cut = nl + 1;
      break;
    }
    cut = nl;
  }
  return data.substr(cut);
}

// --- TempDir -------------------------------------------------------------------------------

std::optional<TempDir> TempDir::create(const std::string& prefix, std::string* error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string base = tmp && *tmp ? tmp : "/tmp";
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  std::string templ = base + "/" + prefix + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    if (error)
      *error = fmt::format("cannot make a temporary directory under {}: {}", base,
                           std::strerror(errno));
    return std::nullopt;
  }
  return TempDir(std::string(buf.data()));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() { remove(); }

bool TempDir::remove() {
  if (path_.empty()) return true;
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (ec) {
    // Directories a child made read-only: make them writable and try once more.
    std::error_code ec2;
    for (auto it = fs::recursive_directory_iterator(
             path_, fs::directory_options::skip_permission_denied, ec2);
         !ec2 && it != fs::recursive_directory_iterator(); it.increment(ec2)) {
      if (it->is_directory(ec2))
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec2);
    }
    ec.clear();
    fs::remove_all(path_, ec);
  }
  bool ok = !ec;
  path_.clear();
  return ok;
}

// --- interrupts ----------------------------------------------------------------------------

struct InterruptGuard::Saved {
  struct sigaction sa_int {};
  struct sigaction sa_term {};
  struct sigaction sa_hup {};
};

InterruptGuard::InterruptGuard() : saved_(new Saved) {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, &saved_->sa_int);
  ::sigaction(SIGTERM, &sa, &saved_->sa_term);
  ::sigaction(SIGHUP, &sa, &saved_->sa_hup);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &saved_->sa_int, nullptr);
  ::sigaction(SIGTERM, &saved_->sa_term, nullptr);
  ::sigaction(SIGHUP, &saved_->sa_hup, nullptr);
  delete saved_;
}

bool interrupt_requested() { return g_interrupt != 0; }
int interrupt_signal() { return static_cast<int>(g_interrupt); }
void request_interrupt() { g_interrupt = SIGINT; }
void clear_interrupt() { g_interrupt = 0; }

}  // namespace gpulint::runtime_check
