#include "doctor/hook_files.hpp"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "install/hooks_merge.hpp"

namespace agentworks::cli::doctor {
namespace fs = std::filesystem;
using nlohmann::json;

HooksFile read_hooks_file(const fs::path& path) {
  HooksFile file;
  file.path = path;
  std::error_code ec;
  if (!fs::exists(path, ec)) return file;
  file.exists = true;
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || doc.is_discarded() || !doc.is_object() || !doc.contains("hooks") || !doc["hooks"].is_object()) {
    file.problem = path.string() + " is not a hooks file (unreadable or not {\"hooks\":{…}} JSON)";
    return file;
  }
  for (const auto& [event, groups] : doc["hooks"].items()) {
    if (!groups.is_array()) continue;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const json& group = groups[g];
      if (!group.is_object()) continue;
      // Cursor: the entry itself has the command; Claude/Codex: a group of hooks.
      if (group.contains("command") && group["command"].is_string()) {
        const std::string command = group["command"].get<std::string>();
        if (install::is_agentworks_command(command, "")) file.ours.push_back({event, g, 0, command});
      }
      const json hooks = group.value("hooks", json::array());
      if (!hooks.is_array()) continue;
      for (std::size_t h = 0; h < hooks.size(); ++h) {
        if (!hooks[h].is_object() || !hooks[h].contains("command") || !hooks[h]["command"].is_string()) continue;
        const std::string command = hooks[h]["command"].get<std::string>();
        if (install::is_agentworks_command(command, "")) file.ours.push_back({event, g, h, command});
      }
    }
  }
  return file;
}

std::string command_program(const std::string& command) {
  std::string out;
  std::size_t i = 0;
  while (i < command.size() && command[i] != ' ' && command[i] != '\t') {
    if (command[i] == '\'') {
      const std::size_t end = command.find('\'', i + 1);
      if (end == std::string::npos) return out + command.substr(i + 1);
      out += command.substr(i + 1, end - i - 1);
      i = end + 1;
    } else if (command[i] == '\\' && i + 1 < command.size()) {
      out += command[i + 1];
      i += 2;
    } else {
      out += command[i++];
    }
  }
  return out;
}

bool is_executable(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

Finding hooks_verdict(const std::vector<fs::path>& candidates, bool provider_named, const std::string& fix) {
  std::string unreadable;
  for (const auto& path : candidates) {
    const HooksFile file = read_hooks_file(path);
    if (!file.problem.empty()) {
      unreadable = file.problem;
      continue;
    }
    if (file.ours.empty()) continue;
    for (const auto& entry : file.ours) {
      const std::string program = command_program(entry.command);
      if (!is_executable(program)) {
        return {Status::fail, path.string() + " runs " + program + " (" + entry.event +
                                  "), which is not an executable file", fix};
      }
    }
    return {Status::ok, std::to_string(file.ours.size()) + " hooks in " + path.string() + " run " +
                            command_program(file.ours.front().command), ""};
  }
  if (!unreadable.empty()) return {Status::fail, unreadable, fix};
  std::string where;
  for (const auto& path : candidates) where += (where.empty() ? "" : ", ") + path.string();
  return {provider_named ? Status::fail : Status::warn, "no agentworks hooks in " + where, fix};
}

}  // namespace agentworks::cli::doctor
