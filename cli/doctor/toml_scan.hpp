// Just enough TOML to READ what Codex keeps in config.toml (never to write it): table headers with bare or quoted
// dotted keys, `key = value` lines and one level of inline tables. Each string value is keyed by its full dotted
// path (segments unquoted); other values keep their raw text. Arrays of tables and multi-line values are skipped.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace agentworks::cli::doctor {

using TomlPath = std::vector<std::string>;

struct TomlValues {
  std::map<TomlPath, std::string> values;
  std::vector<TomlPath> tables;  // every [table] header seen

  // The value at `path`, or nullptr.
  const std::string* get(const TomlPath& path) const;
  bool has_table(const TomlPath& path) const;
};

TomlValues scan_toml(const std::string& text);

}  // namespace agentworks::cli::doctor
