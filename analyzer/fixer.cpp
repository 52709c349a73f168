// Fix application (rounds until stable), atomic file writes, and unified diffs.
#include "analyzer/fixer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace gpulint {

bool fix_applies(const Fix& fix, bool unsafe_fixes) {
  switch (fix.applicability) {
    case Applicability::Safe: return true;
    case Applicability::Unsafe: return unsafe_fixes;
    case Applicability::DisplayOnly: return false;
  }
  return false;
}

namespace {

struct Candidate {
  const Diagnostic* diagnostic;
  std::vector<Edit> edits;  // sorted
};

bool same_edit(const Edit& a, const Edit& b) {
  return a.start == b.start && a.end == b.end && a.content == b.content;
}

// Accepted edits, ordered by (start, end); none of them overlap or touch one another
// (identical ones are stored once).
class AcceptedEdits {
 public:
  // True when `e` is already accepted verbatim.
  bool contains(const Edit& e) const {
    auto it = edits_.lower_bound(key(e));
    return it != edits_.end() && same_edit(it->second, e);
  }
  // True when `e` overlaps or touches an accepted edit.
  bool conflicts(const Edit& e) const {
    // Every accepted edit starting at or before e.end is a candidate; since accepted edits
    // are disjoint and ordered, only the closest few can reach back to e.start.
    auto it = edits_.upper_bound(std::make_tuple(e.end, UINT32_MAX, std::string_view()));
    while (it != edits_.begin()) {
      --it;
      const Edit& a = it->second;
      if (a.end >= e.start) return true;
      break;
    }
    return false;
  }
  void add(const Edit& e) { edits_.emplace(key(e), e); }
  std::vector<Edit> sorted() const {
    std::vector<Edit> out;
    for (const auto& [k, e] : edits_) out.push_back(e);
    return out;
  }

 private:
  using Key = std::tuple<uint32_t, uint32_t, std::string_view>;
  static Key key(const Edit& e) { return {e.start, e.end, std::string_view(e.content)}; }
  std::map<Key, Edit> edits_;
};

}  // namespace

std::optional<std::string> apply_fixes_once(std::string_view text,
                                            const std::vector<Diagnostic>& diagnostics,
                                            bool unsafe_fixes,
                                            std::map<std::string, uint32_t>* fixed) {
  std::vector<Candidate> candidates;
  for (const Diagnostic& d : diagnostics) {
    if (!d.fix || !fix_applies(*d.fix, unsafe_fixes) || d.fix->edits.empty()) continue;
    Candidate c{&d, d.fix->edits};
    std::sort(c.edits.begin(), c.edits.end(), [](const Edit& a, const Edit& b) {
      return std::tie(a.start, a.end) < std::tie(b.start, b.end);
    });
    bool valid = true;
    for (std::size_t i = 0; i < c.edits.size(); ++i) {
      const Edit& e = c.edits[i];
      if (e.start > e.end || e.end > text.size()) valid = false;
      if (i > 0 && e.start < c.edits[i - 1].end) valid = false;  // overlaps itself
    }
    if (valid) candidates.push_back(std::move(c));
  }
  if (candidates.empty()) return std::nullopt;
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     return std::tie(a.edits.front().start, a.diagnostic->code) <
                            std::tie(b.edits.front().start, b.diagnostic->code);
                   });

  AcceptedEdits accepted;
  uint32_t applied = 0;
  for (const Candidate& c : candidates) {
    std::vector<const Edit*> fresh;
    for (const Edit& e : c.edits)
      if (!accepted.contains(e)) fresh.push_back(&e);
    bool ok = true;
    for (const Edit* e : fresh)
      if (accepted.conflicts(*e)) ok = false;
    if (!ok) continue;
    for (const Edit* e : fresh) accepted.add(*e);
    ++applied;
    if (fixed) ++(*fixed)[c.diagnostic->code];
  }
  if (applied == 0) return std::nullopt;

  std::string out;
  out.reserve(text.size() + 64);
  uint32_t pos = 0;
  for (const Edit& e : accepted.sorted()) {
    out.append(text.substr(pos, e.start - pos));
    out.append(e.content);
    pos = e.end;
  }
  out.append(text.substr(pos));
  return out;
}

FixResult fix_source(const SourceFile& source, const FileReport& initial, bool unsafe_fixes,
                     const AnalyzeFn& analyze) {
  FixResult r;
  r.text = std::string(source.text());
  r.report = initial;
  std::map<std::string, uint32_t> fixed;
  for (uint32_t round = 0; round < kMaxFixRounds; ++round) {
    auto next = apply_fixes_once(r.text, r.report.diagnostics, unsafe_fixes, &fixed);
    if (!next || *next == r.text) break;
    r.text = std::move(*next);
    ++r.rounds;
    SourceFile fixed_source(source.path(), std::string(r.text));
    r.report = analyze(fixed_source);
  }
  r.changed = r.text != source.text();
  if (!r.changed) {
    r.fixed.clear();
    return r;
  }
  // Python: tree-sitter's error count of both texts; C++: the compiler errors the front end
  // reported for the original and for the fixed text.
  auto cpp_errors = [](const FileReport& rep) { return rep.syntax_error ? rep.syntax_error->error_count : 0u; };
  bool cpp = initial.language == Language::Cpp;
  uint32_t before = cpp ? cpp_errors(initial) : python_syntax_error_count(source.text());
  uint32_t after = cpp ? cpp_errors(r.report) : python_syntax_error_count(r.text);
  if (after > before) {
    r.error = fmt::format(
        "fixes would introduce a syntax error ({} parse error(s) before, {} after); "
        "file left unchanged",
        before, after);
    r.text = std::string(source.text());
    r.changed = false;
    r.report = initial;
    r.rounds = 0;
    return r;
  }
  r.fixed = std::move(fixed);
  return r;
}

bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* error) {
  auto fail = [&](std::string msg) {
    if (error) *error = std::move(msg);
    return false;
  };
  std::string target = path;
  struct stat lst{};
  if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved))
      return fail(fmt::format("cannot resolve symbolic link: {}", std::strerror(errno)));
    target = resolved;
  }
  struct stat st{};
  bool existed = ::stat(target.c_str(), &st) == 0;
  std::filesystem::path tp(target);
  std::string dir = tp.has_parent_path() ? tp.parent_path().string() : ".";
  std::string tmpl = dir + "/." + tp.filename().string() + ".gpulint-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0)
    return fail(fmt::format("cannot create a temporary file in {}: {}", dir, std::strerror(errno)));
  std::string tmp(name.data());
  auto abort_with = [&](std::string msg) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return fail(std::move(msg));
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return abort_with(fmt::format("write failed: {}", std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
  if (existed) {
    if (::fchmod(fd, st.st_mode & 07777) != 0)
      return abort_with(fmt::format("cannot set the file mode: {}", std::strerror(errno)));
    if (st.st_uid != ::geteuid() || st.st_gid != ::getegid()) {
      // Keep the owner where we may (root); otherwise the file becomes ours, as with editors.
      [[maybe_unused]] int ignored = ::fchown(fd, st.st_uid, st.st_gid);
    }
  }
  if (::fsync(fd) != 0) return abort_with(fmt::format("fsync failed: {}", std::strerror(errno)));
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return fail(fmt::format("close failed: {}", std::strerror(errno)));
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return fail(fmt::format("cannot replace the file: {}", std::strerror(err)));
  }
  // Make the rename durable (best effort).
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Unified diff

namespace {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t nl = s.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? s.size() : nl + 1;
    lines.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  return lines;
}

// A changed region: a[a0, a1) replaced by b[b0, b1).
struct Block {
  std::size_t a0, a1, b0, b1;
};

constexpr int kMaxMyersD = 2000;

// Myers' O(ND) diff of a[ao, ao+n) vs b[bo, bo+m); appends change blocks (absolute indexes).
void myers(const std::vector<std::string_view>& a, std::size_t ao, std::size_t n,
           const std::vector<std::string_view>& b, std::size_t bo, std::size_t m,
           std::vector<Block>& out) {
  if (n == 0 && m == 0) return;
  if (n == 0 || m == 0) {
    out.push_back({ao, ao + n, bo, bo + m});
    return;
  }
  const long N = static_cast<long>(n), M = static_cast<long>(m);
  const long cap = std::min<long>(N + M, kMaxMyersD);
  const long off = cap + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * cap + 3), 0);
  std::vector<std::vector<long>> trace;
  long found = -1;
  for (long d = 0; d <= cap && found < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[k - 1 + off] < v[k + 1 + off]))
        x = v[k + 1 + off];
      else
        x = v[k - 1 + off] + 1;
      long y = x - k;
      while (x < N && y < M && a[ao + x] == b[bo + y]) ++x, ++y;
      v[k + off] = x;
      if (x >= N && y >= M) {
        found = d;
        break;
      }
    }
    trace.emplace_back(v.begin() + (off - d), v.begin() + (off + d + 1));
  }
  if (found < 0) {  // too different: one block
    out.push_back({ao, ao + n, bo, bo + m});
    return;
  }
  // Backtrack into per-line operations (reverse order).
  enum Op : char { Eq, Del, Ins };
  std::vector<Op> ops;
  long x = N, y = M;
  for (long d = found; d > 0; --d) {
    const std::vector<long>& prev = trace[d - 1];  // indexes -(d-1)..(d-1)
    auto pv = [&](long k) { return prev[static_cast<std::size_t>(k + (d - 1))]; };
    long k = x - y;
    long pk;
    if (k == -d || (k != d && pv(k - 1) < pv(k + 1)))
      pk = k + 1;
    else
      pk = k - 1;
    long px = pv(pk), py = px - pk;
    long mx = pk == k + 1 ? px : px + 1;  // after the single step
    long my = mx - k;
    while (x > mx && y > my) {
      ops.push_back(Eq);
      --x, --y;
    }
    ops.push_back(pk == k + 1 ? Ins : Del);
    x = px, y = py;
  }
  while (x > 0 && y > 0) {
    ops.push_back(Eq);
    --x, --y;
  }
  std::reverse(ops.begin(), ops.end());
  std::size_t ia = 0, ib = 0;
  for (std::size_t i = 0; i < ops.size();) {
    if (ops[i] == Eq) {
      ++ia, ++ib, ++i;
      continue;
    }
    Block blk{ao + ia, 0, bo + ib, 0};
    while (i < ops.size() && ops[i] != Eq) {
      if (ops[i] == Del) ++ia;
      else ++ib;
      ++i;
    }
    blk.a1 = ao + ia;
    blk.b1 = bo + ib;
    out.push_back(blk);
  }
}

std::string range_text(std::size_t start, std::size_t len) {
  if (len == 1) return std::to_string(start + 1);
  if (len == 0) return fmt::format("{},0", start);
  return fmt::format("{},{}", start + 1, len);
}

void emit_line(std::string& out, char tag, std::string_view line) {
  out.push_back(tag);
  out.append(line);
  if (line.empty() || line.back() != '\n') out.append("\n\\ No newline at end of file\n");
}

}  // namespace

std::string unified_diff(std::string_view old_text, std::string_view new_text,
                         std::string_view old_name, std::string_view new_name, int context) {
  if (old_text == new_text) return {};
  auto a = split_lines(old_text), b = split_lines(new_text);
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  std::vector<Block> blocks;
  myers(a, prefix, a.size() - prefix - suffix, b, prefix, b.size() - prefix - suffix, blocks);
  if (blocks.empty()) return {};

  const std::size_t ctx = static_cast<std::size_t>(std::max(context, 0));
  std::string out = fmt::format("--- {}\n+++ {}\n", old_name, new_name);
  for (std::size_t i = 0; i < blocks.size();) {
    std::size_t j = i;
    while (j + 1 < blocks.size() && blocks[j + 1].a0 - blocks[j].a1 <= 2 * ctx) ++j;
    std::size_t a_start = blocks[i].a0 >= ctx ? blocks[i].a0 - ctx : 0;
    std::size_t b_start = blocks[i].b0 - (blocks[i].a0 - a_start);
    std::size_t a_end = std::min(a.size(), blocks[j].a1 + ctx);
    std::size_t b_end = blocks[j].b1 + (a_end - blocks[j].a1);
    out += fmt::format("@@ -{} +{} @@\n", range_text(a_start, a_end - a_start),
                       range_text(b_start, b_end - b_start));
    std::size_t ia = a_start;
    for (std::size_t k = i; k <= j; ++k) {
      for (; ia < blocks[k].a0; ++ia) emit_line(out, ' ', a[ia]);
      for (std::size_t x = blocks[k].a0; x < blocks[k].a1; ++x) emit_line(out, '-', a[x]);
      for (std::size_t x = blocks[k].b0; x < blocks[k].b1; ++x) emit_line(out, '+', b[x]);
      ia = blocks[k].a1;
    }
    for (; ia < a_end; ++ia) emit_line(out, ' ', a[ia]);
    i = j + 1;
  }
  return out;
}

}  // namespace gpulint
