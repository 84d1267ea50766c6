// The command lines of the documentation: every `agentworks …` line in a code block of README.md, docs/**.md and
// examples/*/README.md, for the tests that parse them (unit/docs_examples_test.cpp) and run them
// (integration/docs_examples_test.cpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace agentworks::testing {

struct Example {
  std::string where;  // file:line, relative to the source tree
  std::string line;   // the command line as written (continuations joined, comment and redirection removed)
};

// The examples of one file, in order.
std::vector<Example> examples_in(const std::filesystem::path& file, const std::filesystem::path& root);
// Those of README.md, docs/**.md and examples/*/README.md under `root`.
std::vector<Example> every_example(const std::filesystem::path& root);
// Shell words: '…' and "…" quoted, quotes removed.
std::vector<std::string> shell_words(const std::string& line);

}  // namespace agentworks::testing
