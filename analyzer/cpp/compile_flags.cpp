// GCC compile flags → flags Clang 16's driver accepts (see compile_flags.h for the list and
// how it was measured).
#include "analyzer/cpp/compile_flags.h"

#include <optional>
#include <string_view>

#include <clang/Basic/LangStandard.h>
#include <clang/Driver/Options.h>
#include <llvm/Option/Arg.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Option/Option.h>

namespace gpulint::cpp {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// GCC options whose value is the next argument and that Clang does not read that way.
bool is_gcc_separate_option(std::string_view a) {
  return a == "-aux-info" || a == "-dumpbase" || a == "-dumpbase-ext" || a == "-dumpdir";
}

// Options Clang knows but that fail a -fsyntax-only parse of GCC's command (or make Clang load
// GCC's files), and that do not change the code's meaning: dropped.
bool is_gcc_only_use_of_clang_option(std::string_view a) {
  return starts_with(a, "-fsanitize") || starts_with(a, "-fno-sanitize") || starts_with(a, "-fplugin") ||
         starts_with(a, "-fprofile-use") || starts_with(a, "-fauto-profile") ||
         starts_with(a, "-fdiagnostics-format") || a == "-mrecord-mcount" || a == "-p";
}

// A -std value GCC accepts for a C++ standard newer than Clang 16 knows (Clang 16 calls its
// newest c++2b; clang::LangStandard has no c++23/c++26/c++2c). Returns Clang's name, or empty.
std::string_view newer_than_clang(std::string_view v) {
  for (std::string_view n : {"c++23", "c++26", "c++2c"})
    if (v == n) return "c++2b";
  for (std::string_view n : {"gnu++23", "gnu++26", "gnu++2c"})
    if (v == n) return "gnu++2b";
  return {};
}

// The -std value Clang 16 parses LibTorch with for the value `v` as written, or empty to keep
// it: GCC's names of newer standards → c++2b (above); a C++ standard older than C++14
// (clang::LangStandard's table: c++98/03/0x/11 and their aliases and GNU dialects) → C++14,
// keeping the GNU dialect. LibTorch's headers refuse older standards (torch/all.h,
// torch/script.h: `#error C++14 or later compatible compiler is required to use PyTorch.`),
// so the whole translation unit would fail to parse. Projects record them when their
// CMakeLists.txt says CXX_STANDARD 11 and the LibTorch they build against raised the standard
// itself (or was old enough not to check). C++14 only adds to C++11: the code means what it meant.
std::string_view clang_standard(std::string_view v) {
  if (std::string_view n = newer_than_clang(v); !n.empty()) return n;
  clang::LangStandard::Kind k = clang::LangStandard::getLangKind(llvm::StringRef(v.data(), v.size()));
  if (k == clang::LangStandard::lang_unspecified) return {};
  const clang::LangStandard& std = clang::LangStandard::getLangStandardForKind(k);
  if (!std.isCPlusPlus() || std.isCPlusPlus14()) return {};
  return std.isGNUMode() ? "gnu++14" : "c++14";
}

// The arguments as Clang's driver option table reads them (the masks of
// Driver::ParseArgStrings in GCC-compatible mode: no cc1-only, cl, dxc or flang-only options).
// Each parsed Arg starts at its index; the arguments after it up to the next Arg are its
// separate values (`-isystem DIR`, `--std c++11`), which are never judged as options themselves.
struct ReadFlags {
  std::vector<bool> starts, unknown;
  std::vector<std::size_t> span;                // arguments the Arg starting here takes (1 + separate values)
  std::vector<std::optional<std::string>> std;  // the value of a -std option (OPT_std_EQ or an alias) starting here
};

ReadFlags read_flags(const std::vector<std::string>& in) {
  std::vector<const char*> argv;
  argv.reserve(in.size());
  for (const std::string& s : in) argv.push_back(s.c_str());
  const llvm::opt::OptTable& table = clang::driver::getDriverOptTable();
  unsigned missing_index = 0, missing_count = 0;
  namespace o = clang::driver::options;
  llvm::opt::InputArgList args =
      table.ParseArgs(argv, missing_index, missing_count, /*FlagsToInclude=*/0,
                      o::NoDriverOption | o::CLOption | o::CLDXCOption | o::DXCOption | o::FlangOnlyOption);
  ReadFlags r;
  r.starts.assign(in.size(), false);
  r.unknown.assign(in.size(), false);
  r.span.assign(in.size(), 1);
  r.std.assign(in.size(), std::nullopt);
  for (const llvm::opt::Arg* a : args) {
    if (a->getIndex() >= in.size()) continue;
    r.starts[a->getIndex()] = true;
    const llvm::opt::Option& opt = a->getOption();
    if (opt.getKind() == llvm::opt::Option::UnknownClass || opt.hasFlag(o::Unsupported)) r.unknown[a->getIndex()] = true;
    if (opt.matches(o::OPT_std_EQ) && a->getNumValues() == 1) r.std[a->getIndex()] = std::string(a->getValue());
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!r.starts[i]) continue;
    std::size_t j = i + 1;
    while (j < in.size() && !r.starts[j]) ++j;
    r.span[i] = j - i;
  }
  return r;
}

}  // namespace

std::vector<std::string> clang_compatible_flags(const std::vector<std::string>& flags,
                                                std::vector<std::string>* dropped) {
  auto note = [&](std::string s) {
    if (dropped) dropped->push_back(std::move(s));
  };
  // 1. GCC's separate-value options go first, with their value, before the option table
  //    would read the value as an input file.
  std::vector<std::string> in;
  in.reserve(flags.size());
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (is_gcc_separate_option(flags[i])) {
      note(flags[i]);
      if (i + 1 < flags.size()) note(flags[++i]);
      continue;
    }
    in.push_back(flags[i]);
  }
  // 2. Clang's driver option table decides what Clang knows and which arguments are -std.
  ReadFlags r = read_flags(in);
  // 3. The rest, argument by argument.
  std::vector<std::string> out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::string& a = in[i];
    if (!r.starts[i]) {
      out.push_back(a);
      continue;
    }
    if (r.unknown[i] || is_gcc_only_use_of_clang_option(a)) {
      note(a);
      continue;
    }
    if (r.std[i]) {
      if (std::string_view s = clang_standard(*r.std[i]); !s.empty()) {
        std::string written = a;
        for (std::size_t k = 1; k < r.span[i]; ++k) written += " " + in[i + k];
        std::string now = "-std=" + std::string(s);
        note(written + " → " + now);
        out.push_back(std::move(now));
        i += r.span[i] - 1;  // a separate value (`--std c++11`) goes with its option
        continue;
      }
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace gpulint::cpp

namespace gpulint::cpp {

std::vector<std::string> without_c_standards(const std::vector<std::string>& flags) {
  ReadFlags r = read_flags(flags);
  std::vector<std::string> out;
  out.reserve(flags.size());
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (r.starts[i] && r.std[i]) {
      const std::string& v = *r.std[i];
      clang::LangStandard::Kind k = clang::LangStandard::getLangKind(v);
      bool cxx = k == clang::LangStandard::lang_unspecified
                     ? !newer_than_clang(v).empty()
                     : clang::LangStandard::getLangStandardForKind(k).isCPlusPlus();
      if (!cxx) {
        i += r.span[i] - 1;
        continue;
      }
    }
    out.push_back(flags[i]);
  }
  return out;
}

}  // namespace gpulint::cpp
