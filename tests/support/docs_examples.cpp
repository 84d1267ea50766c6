#include "support/docs_examples.hpp"

#include <fstream>

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

// The text before an unquoted " #" (a comment) and an unquoted " <" (a redirection).
std::string strip_shell_tail(const std::string& line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if ((c == '#' || c == '<') && i > 0 && line[i - 1] == ' ') {
      return line.substr(0, i);
    }
  }
  return line;
}

}  // namespace

std::vector<Example> examples_in(const fs::path& file, const fs::path& root) {
  std::vector<Example> out;
  std::ifstream in(file);
  std::string line;
  bool in_block = false;
  int number = 0;
  const std::string name = fs::relative(file, root).string();
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find_first_not_of(' ');
    const std::string text = first == std::string::npos ? "" : line.substr(first);
    if (text.rfind("```", 0) == 0) {
      in_block = !in_block;
      continue;
    }
    if (!in_block) continue;
    std::string command = text.rfind("$ ", 0) == 0 ? text.substr(2) : text;
    if (command.rfind("agentworks ", 0) != 0) continue;
    const int at = number;
    while (!command.empty() && command.back() == '\\' && std::getline(in, line)) {  // a continued line
      ++number;
      command.pop_back();
      command += line;
    }
    out.push_back({name + ":" + std::to_string(at), strip_shell_tail(command)});
  }
  return out;
}

std::vector<Example> every_example(const fs::path& root) {
  std::vector<fs::path> files = {root / "README.md"};
  for (const auto& entry : fs::recursive_directory_iterator(root / "docs"))
    if (entry.is_regular_file() && entry.path().extension() == ".md") files.push_back(entry.path());
  for (const auto& entry : fs::directory_iterator(root / "examples"))
    if (fs::exists(entry.path() / "README.md")) files.push_back(entry.path() / "README.md");
  std::vector<Example> out;
  for (const auto& f : files) {
    auto found = examples_in(f, root);
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> out;
  std::string word;
  bool any = false;
  char quote = 0;
  for (const char c : line) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      any = true;
    } else if (c == ' ' || c == '\t') {
      if (any) out.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) out.push_back(word);
  return out;
}

}  // namespace agentworks::testing
