// What a command declares on its subcommand: options and flags bound to its own members, and the few rules
// that relate them. options.cpp is the only file of the CLI that includes the parser (CLI11): its header
// costs seconds of compile time per file, so the thirty command files do without it.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace agentworks::cli {

// One declared option, for the rules that relate it (a cheap handle; the parser owns the option).
class Option {
 public:
  Option& required();
  Option& one_of(std::initializer_list<std::string_view> allowed);
  Option& excludes(const Option& other);

 private:
  friend class Options;
  explicit Option(CLI::Option* option) : option_(option) {}
  CLI::Option* option_;
};

// `names` is "--long" or "--long,-s"; a name without dashes is positional, and "word,--long" is either (the option
// may be given by name or as the next free word).
class Options {
 public:
  // The call a command is about (call_…): `--call ID`, or the ID alone, as the examples write it.
  Option call_id(std::string& into);
  explicit Options(CLI::App& app) : app_(&app) {}

  Option option(std::string_view names, std::string& into, std::string_view help);
  Option option(std::string_view names, int& into, std::string_view help);
  Option option(std::string_view names, std::optional<std::string>& into, std::string_view help);
  Option option(std::string_view names, std::optional<int>& into, std::string_view help);
  Option option(std::string_view names, std::optional<long long>& into, std::string_view help);
  Option option(std::string_view names, std::vector<std::string>& into, std::string_view help);
  void flag(std::string_view names, bool& into, std::string_view help);
  // Everything from the first word that is not one of ours on is left, in order, for Context::rest.
  void pass_rest_through();
  void footer(std::string_view text);

 private:
  CLI::App* app_;
};

}  // namespace agentworks::cli
