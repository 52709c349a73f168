// Which paths are C++ for gpulint: the one list of extensions that `check`'s and `audit`'s
// discovery and the C++ front end (analyzer/cpp) share. No clang here, so the Python-only build
// (GPULINT_CPP=OFF) links it too.
#pragma once

#include <array>
#include <filesystem>
#include <string_view>

namespace gpulint {

/// C++ source extensions, lower case (a translation unit of its own).
inline constexpr std::array<std::string_view, 4> kCppSourceExtensions = {".cpp", ".cc", ".cxx", ".c++"};
/// C/C++ header extensions, lower case (analysed as its own main file: analyzer/cpp/frontend.h).
inline constexpr std::array<std::string_view, 4> kCppHeaderExtensions = {".h", ".hh", ".hpp", ".hxx"};

/// True when `path`'s extension (case-insensitive) is one of kCppSourceExtensions.
bool is_cpp_path(const std::filesystem::path& path);
/// True when `path`'s extension (case-insensitive) is one of kCppHeaderExtensions.
bool is_cpp_header_path(const std::filesystem::path& path);
/// A source or a header: every file the C++ front end reads.
bool is_cpp_file_path(const std::filesystem::path& path);

}  // namespace gpulint
