#include "doctor/toml_scan.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>

namespace agentworks::cli::doctor {
namespace {

void skip_space(const std::string& s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

// A basic ("…", with escapes) or literal ('…') string starting at s[i]; nullopt when unterminated.
std::optional<std::string> quoted(const std::string& s, std::size_t& i) {
  const char quote = s[i++];
  std::string out;
  while (i < s.size()) {
    const char c = s[i++];
    if (c == quote) return out;
    if (quote == '"' && c == '\\' && i < s.size()) {
      const char e = s[i++];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      continue;
    }
    out += c;
  }
  return std::nullopt;
}

// A dotted key (bare or quoted segments) starting at s[i], up to `stop` ('=' or ']').
std::optional<TomlPath> key_path(const std::string& s, std::size_t& i, char stop) {
  TomlPath path;
  while (true) {
    skip_space(s, i);
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '"' || s[i] == '\'') {
      auto segment = quoted(s, i);
      if (!segment) return std::nullopt;
      path.push_back(*segment);
    } else {
      const std::size_t start = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '-')) ++i;
      if (i == start) return std::nullopt;
      path.push_back(s.substr(start, i - start));
    }
    skip_space(s, i);
    if (i < s.size() && s[i] == '.') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == stop) return path;
    return std::nullopt;
  }
}

TomlPath joined(const TomlPath& a, const TomlPath& b) {
  TomlPath out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// `{ k = v, k2 = v2 }` starting at line[i] (after '{').
void inline_table(TomlValues& out, const TomlPath& table, const std::string& line, std::size_t i) {
  while (i < line.size()) {
    skip_space(line, i);
    if (i >= line.size() || line[i] == '}') return;
    if (line[i] == ',') {
      ++i;
      continue;
    }
    auto key = key_path(line, i, '=');
    if (!key) return;
    ++i;  // '='
    skip_space(line, i);
    const TomlPath path = joined(table, *key);
    if (i < line.size() && (line[i] == '"' || line[i] == '\'')) {
      auto value = quoted(line, i);
      if (!value) return;
      out.values[path] = *value;
    } else {
      const std::size_t start = i;
      while (i < line.size() && line[i] != ',' && line[i] != '}') ++i;
      std::string raw = line.substr(start, i - start);
      while (!raw.empty() && raw.back() == ' ') raw.pop_back();
      out.values[path] = raw;
    }
  }
}

// `key = value` with value at line[i] onwards.
void assign(TomlValues& out, const TomlPath& path, const std::string& line, std::size_t i) {
  skip_space(line, i);
  if (i >= line.size()) return;
  if (line[i] == '"' || line[i] == '\'') {
    if (auto value = quoted(line, i)) out.values[path] = *value;
  } else if (line[i] == '{') {
    inline_table(out, path, line, i + 1);
  } else {
    std::string raw = line.substr(i);
    const auto hash = raw.find(" #");
    if (hash != std::string::npos) raw.resize(hash);
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\r')) raw.pop_back();
    out.values[path] = raw;
  }
}

}  // namespace

const std::string* TomlValues::get(const TomlPath& path) const {
  const auto it = values.find(path);
  return it == values.end() ? nullptr : &it->second;
}

bool TomlValues::has_table(const TomlPath& path) const {
  return std::find(tables.begin(), tables.end(), path) != tables.end();
}

TomlValues scan_toml(const std::string& text) {
  TomlValues out;
  TomlPath table;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t i = 0;
    skip_space(line, i);
    if (i >= line.size() || line[i] == '#') continue;
    if (line[i] == '[') {
      if (i + 1 < line.size() && line[i + 1] == '[') {
        table = {"\x01array"};  // arrays of tables: not needed; keep their keys out of the way
        continue;
      }
      ++i;
      auto path = key_path(line, i, ']');
      table = path ? *path : TomlPath{"\x01invalid"};
      if (path) out.tables.push_back(*path);
      continue;
    }
    auto key = key_path(line, i, '=');
    if (!key) continue;
    assign(out, joined(table, *key), line, i + 1);
  }
  return out;
}

}  // namespace agentworks::cli::doctor
