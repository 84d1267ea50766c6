// agentworks doctor [--provider P] [--project DIR]: runs every check of the doctor's table (cli/doctor/) in one
// loop and reports one line per finding: ok, warn or fail, what it found, and the command that fixes it. Exit 0
// when nothing failed (warnings allowed); otherwise the exit code of the first failed check's kind
// (docs/protocol.md, "Exit codes"): 6 when the server or the bridge cannot be reached, 3 for a revoked login or a
// refused socket, 1 for anything else.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "agentworks/error.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "doctor/doctor_check.hpp"
#include "doctor/doctor_state.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace fs = std::filesystem;
namespace {

// Which exit code a failed check stands for.
int exit_code_of(std::string_view check) {
  if (check == "server" || check == "bridge") return exit_unreachable;
  if (check == "login") return exit_auth;
  return exit_failure;
}

// A check that throws (it should not) still gives a line, and the other checks still run.
std::vector<doctor::Finding> run_one(const doctor::CheckEntry& check, doctor::State& state) {
  try {
    return check.run(state);
  } catch (const std::exception& e) {
    return doctor::one(doctor::Status::fail, std::string("the check could not run: ") + e.what());
  }
}

struct Ran {
  const doctor::CheckEntry* check;
  std::vector<doctor::Finding> findings;
};

// Without --provider, a provider the person does not have here (not installed, and nothing of agentworks set up for
// it: all its findings are warnings) is named once instead of a warning per check. A provider with anything set
// up keeps its lines: a broken hook must show whether or not its CLI is installed.
std::vector<Provider> unused_providers(const std::vector<Ran>& ran) {
  std::vector<Provider> unused;
  for (const Provider p : {Provider::claude, Provider::codex, Provider::cursor, Provider::pi}) {
    bool only_warnings = true;
    for (const auto& r : ran)
      if (r.check->provider == p)
        for (const auto& f : r.findings) only_warnings = only_warnings && f.status == doctor::Status::warn;
    if (only_warnings && !doctor::provider_installed(p)) unused.push_back(p);
  }
  return unused;
}

doctor::Finding unused_line(const std::vector<Provider>& unused) {
  std::string names;
  for (const Provider p : unused) {
    const auto& info = provider_info(p);
    names += (names.empty() ? "" : ", ") + std::string(info.display_name) +
             (info.executable.empty() ? " (no ~/.cursor)" : " (no `" + std::string(info.executable) + "` on PATH)");
  }
  const bool none = unused.size() == kProviders.size();
  return {none ? doctor::Status::warn : doctor::Status::ok,
          "not set up here: " + names + "; their checks are skipped (agentworks doctor --provider " +
              std::string(provider_info(unused.front()).name) + " runs them anyway)",
          none ? "install Claude Code, Codex, Cursor or Pi, then agentworks attach PROVIDER" : ""};
}

class Doctor final : public Command {
 public:
  void define(Options& options) override {
    options.option("--provider", provider_, "Only the checks of this provider (claude, codex, cursor or pi)")
        .one_of({"claude", "codex", "cursor", "pi"});
    options.option("--project", project_, "The project whose hooks are checked (default: the current directory)");
  }

  json run(const Context& ctx) override {
    doctor::Inputs inputs;
    inputs.config_path = ctx.config_path;
    inputs.project = project_directory(project_);
    if (!provider_.empty()) inputs.provider = provider_from_name(provider_);
    doctor::State state(inputs);
    std::vector<Ran> ran;
    for (const auto& check : doctor::check_table()) {
      if (check.provider && inputs.provider && *check.provider != *inputs.provider) continue;
      ran.push_back(Ran{&check, run_one(check, state)});
    }
    const std::vector<Provider> unused = inputs.provider ? std::vector<Provider>{} : unused_providers(ran);
    json checks = json::array();
    int exit_status = exit_ok;
    bool named_unused = false;
    auto report = [&](std::string_view name, std::string_view usual_fix, doctor::Finding finding) {
      if (finding.status != doctor::Status::ok && finding.fix.empty()) finding.fix = std::string(usual_fix);
      if (finding.status == doctor::Status::ok) finding.fix.clear();
      if (finding.status == doctor::Status::fail && exit_status == exit_ok) exit_status = exit_code_of(name);
      checks.push_back({{"name", std::string(name)},
                        {"status", std::string(doctor::status_name(finding.status))},
                        {"found", finding.found},
                        {"fix", finding.fix.empty() ? json(nullptr) : json(finding.fix)}});
    };
    for (auto& r : ran) {
      const bool skipped = r.check->provider &&
                           std::find(unused.begin(), unused.end(), *r.check->provider) != unused.end();
      if (skipped) {
        if (!named_unused) report("providers", "", unused_line(unused));
        named_unused = true;
        continue;
      }
      for (auto& finding : r.findings) report(r.check->name, r.check->fix, std::move(finding));
    }
    return json{{"ok", exit_status == exit_ok}, {"exit_code", exit_status}, {"project", inputs.project.string()},
                {"checks", checks}};
  }

  void print(const json& r) const override {
    for (const auto& c : r["checks"]) {
      const std::string status = c.value("status", "");
      std::cout << (status == "ok" ? "ok   " : status == "warn" ? "warn " : "FAIL ") << c.value("name", "") << ": "
                << c.value("found", "");
      if (c["fix"].is_string()) std::cout << "\n       fix: " << c["fix"].get<std::string>();
      std::cout << "\n";
    }
    std::cout << (r.value("ok", false) ? "No check failed." : "Some checks failed; run the fix commands above.")
              << "\n";
  }

  int exit_status(const json& r) const override { return r.value("exit_code", 0); }

 private:
  std::string provider_;
  std::string project_;
};

}  // namespace

std::unique_ptr<Command> make_doctor() { return std::make_unique<Doctor>(); }

}  // namespace agentworks::cli
