// The bridge from Options to CLI11 (see options.hpp for why it is the one file that includes it).
#include "options.hpp"

#include <CLI/CLI.hpp>

namespace agentworks::cli {
namespace {

template <typename T>
CLI::Option* add(CLI::App* app, std::string_view names, T& into, std::string_view help) {
  return app->add_option(std::string(names), into, std::string(help));
}

}  // namespace

Option& Option::required() {
  option_->required();
  return *this;
}

Option& Option::one_of(std::initializer_list<std::string_view> allowed) {
  std::vector<std::string> words(allowed.begin(), allowed.end());
  option_->check(CLI::IsMember(words));
  return *this;
}

Option& Option::excludes(const Option& other) {
  option_->excludes(other.option_);
  return *this;
}

Option Options::option(std::string_view names, std::string& into, std::string_view help) {
  return Option(add(app_, names, into, help));
}
Option Options::option(std::string_view names, int& into, std::string_view help) {
  return Option(add(app_, names, into, help));
}
Option Options::option(std::string_view names, std::optional<std::string>& into, std::string_view help) {
  return Option(add(app_, names, into, help));
}
Option Options::option(std::string_view names, std::optional<int>& into, std::string_view help) {
  return Option(add(app_, names, into, help));
}
Option Options::option(std::string_view names, std::optional<long long>& into, std::string_view help) {
  return Option(add(app_, names, into, help));
}
Option Options::option(std::string_view names, std::vector<std::string>& into, std::string_view help) {
  return Option(add(app_, names, into, help));
}

Option Options::call_id(std::string& into) {
  return Option(add(app_, "call,--call", into, "The call (call_…); the --call may be left out"));
}

void Options::flag(std::string_view names, bool& into, std::string_view help) {
  app_->add_flag(std::string(names), into, std::string(help));
}

void Options::pass_rest_through() { app_->prefix_command(true); }

void Options::footer(std::string_view text) { app_->footer(std::string(text)); }

}  // namespace agentworks::cli
