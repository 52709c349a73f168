#include "analyzer/cpp_paths.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace gpulint {
namespace {

template <std::size_t N>
bool has_extension(const std::filesystem::path& path, const std::array<std::string_view, N>& exts) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(exts.begin(), exts.end(), ext) != exts.end();
}

}  // namespace

bool is_cpp_path(const std::filesystem::path& path) { return has_extension(path, kCppSourceExtensions); }

bool is_cpp_header_path(const std::filesystem::path& path) { return has_extension(path, kCppHeaderExtensions); }

bool is_cpp_file_path(const std::filesystem::path& path) { return is_cpp_path(path) || is_cpp_header_path(path); }

}  // namespace gpulint
