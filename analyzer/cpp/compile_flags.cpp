// GCC compile flags → flags Clang 16's driver accepts (see compile_flags.h for the list and
// how it was measured).
#include "analyzer/cpp/compile_flags.h"

#include <string_view>

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

// -std values GCC accepts and Clang 16 spells differently (its newest standard is c++2b).
std::string_view clang_std(std::string_view a) {
  for (std::string_view v : {"-std=c++23", "-std=c++26", "-std=c++2c", "--std=c++23", "--std=c++26", "--std=c++2c"})
    if (a == v) return "-std=c++2b";
  for (std::string_view v : {"-std=gnu++23", "-std=gnu++26", "-std=gnu++2c", "--std=gnu++23", "--std=gnu++26", "--std=gnu++2c"})
    if (a == v) return "-std=gnu++2b";
  return {};
}

// -std values older than C++14: LibTorch's headers refuse them (torch/all.h, torch/script.h:
// `#error C++14 or later compatible compiler is required to use PyTorch.`), so the whole
// translation unit would fail to parse. Projects record them when their CMakeLists.txt says
// CXX_STANDARD 11 and the LibTorch they build against raised the standard itself (or was old
// enough not to check). Raised to C++14, LibTorch's minimum, keeping the GNU dialect.
std::string_view libtorch_std(std::string_view a) {
  if (starts_with(a, "--std=")) a.remove_prefix(1);
  for (std::string_view v : {"-std=c++98", "-std=c++03", "-std=c++0x", "-std=c++11"})
    if (a == v) return "-std=c++14";
  for (std::string_view v : {"-std=gnu++98", "-std=gnu++03", "-std=gnu++0x", "-std=gnu++11"})
    if (a == v) return "-std=gnu++14";
  return {};
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
  // 2. Clang's driver option table decides what Clang knows (the masks of Driver::ParseArgStrings
  //    in GCC-compatible mode: no cc1-only, cl, dxc or flang-only options).
  std::vector<const char*> argv;
  argv.reserve(in.size());
  for (const std::string& s : in) argv.push_back(s.c_str());
  const llvm::opt::OptTable& table = clang::driver::getDriverOptTable();
  unsigned missing_index = 0, missing_count = 0;
  namespace o = clang::driver::options;
  llvm::opt::InputArgList args =
      table.ParseArgs(argv, missing_index, missing_count, /*FlagsToInclude=*/0,
                      o::NoDriverOption | o::CLOption | o::CLDXCOption | o::DXCOption | o::FlangOnlyOption);
  // Each parsed Arg starts at its index; the arguments after it up to the next Arg are its
  // separate values (`-isystem DIR`), which are never judged as options themselves.
  std::vector<bool> starts(in.size(), false), unknown(in.size(), false);
  for (const llvm::opt::Arg* a : args) {
    if (a->getIndex() >= in.size()) continue;
    starts[a->getIndex()] = true;
    const llvm::opt::Option& opt = a->getOption();
    if (opt.getKind() == llvm::opt::Option::UnknownClass || opt.hasFlag(o::Unsupported))
      unknown[a->getIndex()] = true;
  }
  // 3. The rest, argument by argument.
  std::vector<std::string> out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::string& a = in[i];
    if (!starts[i]) {
      out.push_back(a);
      continue;
    }
    if (unknown[i] || is_gcc_only_use_of_clang_option(a)) {
      note(a);
      continue;
    }
    if (std::string_view s = clang_std(a); !s.empty()) {
      note(a + " → " + std::string(s));
      out.emplace_back(s);
      continue;
    }
    if (std::string_view s = libtorch_std(a); !s.empty()) {
      note(a + " → " + std::string(s));
      out.emplace_back(s);
      continue;
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace gpulint::cpp
