// One rule for "this path lies inside that folder", on absolute normalized paths as text: "/a/b" is inside "/a"
// and "/", "/ab" is not inside "/a", and a folder is not inside itself. Crew folders (nesting, Crew roots) and the
// commands a declaration names use it.
#pragma once

#include <string_view>

namespace agentworks {

inline bool path_inside(std::string_view dir, std::string_view path) {
  if (dir.empty() || path.size() <= dir.size() || path.compare(0, dir.size(), dir) != 0) return false;
  return dir.back() == '/' || path[dir.size()] == '/';
}

}  // namespace agentworks
