#include "install/materialize.hpp"

#include <nlohmann/json.hpp>
#include <system_error>

#include "install/embedded_plugins.hpp"
#include "install/file_io.hpp"
#include "install/hook_binary.hpp"
#include "install/hooks_merge.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;
using nlohmann::json;

std::string hook_command_for(const fs::path& hook) { return hook.empty() ? std::string() : shell_quote(hook.string()); }

json materialize(std::initializer_list<std::string_view> prefixes, const fs::path& dest,
                 const std::string& hook_command) {
  json files = json::array();
  for (const auto& file : embedded_plugin_files()) {
    bool wanted = false;
    for (const auto prefix : prefixes) wanted = wanted || file.path.rfind(prefix, 0) == 0;
    if (!wanted) continue;
    std::string content(file.content);
    if (file.path.size() > 5 && file.path.substr(file.path.size() - 5) == ".json" &&
        (content.find(kHookPlaceholder) != std::string::npos || content.find(kCliPlaceholder) != std::string::npos)) {
      json doc = json::parse(content);
      substitute_hook(doc, hook_command);
      substitute(doc, kCliPlaceholder, agentworks_cli_path());
      content = pretty_json(doc);
    }
    const fs::path path = dest / fs::path(std::string(file.path));
    const bool changed = write_file_atomic(path, content);
    files.push_back({{"path", path.string()}, {"changed", changed}});
  }
  return files;
}

std::string agentworks_cli_path() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("agentworks") : exe.string();
}

json merge_into_hooks_file(std::string_view template_path, const fs::path& target, const std::string& hook_command) {
  json ours = json::parse(embedded_plugin_file(template_path));
  substitute_hook(ours, hook_command);
  ours.erase("description");  // the template's own note; the person's file keeps theirs
  const json existing = read_json_file(target);
  const json merged = merge_hooks(existing, ours, hook_command, target.string());
  const bool changed = write_file_atomic(target, pretty_json(merged));
  return {{"path", target.string()}, {"changed", changed}};
}

json remove_from_hooks_file(const fs::path& target, const std::string& hook_command) {
  const json existing = read_json_file(target);
  if (existing.is_null()) return {{"path", target.string()}, {"changed", false}, {"removed_file", false}};
  const json stripped = remove_hooks(existing, hook_command, target.string());
  if (stripped == existing) return {{"path", target.string()}, {"changed", false}, {"removed_file", false}};
  if (hooks_file_empty(stripped)) {
    std::error_code ec;
    fs::remove(target, ec);
    return {{"path", target.string()}, {"changed", true}, {"removed_file", true}};
  }
  const bool changed = write_file_atomic(target, pretty_json(stripped));
  return {{"path", target.string()}, {"changed", changed}, {"removed_file", false}};
}

}  // namespace agentworks::cli::install
