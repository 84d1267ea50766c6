// Drives tests/browser/cdp_driver.mjs: node speaking the Chrome DevTools Protocol to Debian's headless Chromium.
// The test sends one command per line and reads its answer with a deadline (navigate, eval, wait, click,
// screenshot; see the driver's header).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "support/mcp_driver.hpp"  // find_on_path
#include "testing/piped_process.hpp"
#include "testing/process.hpp"

#ifndef AGENTWORKS_BROWSER_TEST_DIR
#error "AGENTWORKS_BROWSER_TEST_DIR must be defined by CMake"
#endif

namespace agentworks::testing {

inline std::filesystem::path browser_test_dir() { return AGENTWORKS_BROWSER_TEST_DIR; }

// Why the browser tests cannot run here ("" when they can): node, Chromium and `npm ci` in tests/browser.
inline std::string browser_missing() {
  if (find_on_path("node").empty()) return "node is not on PATH";
  if (find_on_path("chromium").empty() && find_on_path("chromium-browser").empty() &&
      find_on_path("google-chrome").empty()) {
    return "Chromium is not installed (apt-get install chromium)";
  }
  if (!std::filesystem::exists(browser_test_dir() / "node_modules" / "ws")) {
    return "the DevTools client is not installed: run `npm ci` in " + browser_test_dir().string();
  }
  return {};
}

class BrowserDriver {
 public:
  BrowserDriver(const EnvOverrides& env, const std::filesystem::path& stderr_path) : stderr_path_(stderr_path) {
    const std::string node = find_on_path("node");
    process_ = std::make_unique<PipedProcess>(
        std::vector<std::string>{node, (browser_test_dir() / "cdp_driver.mjs").string()}, env,
        std::filesystem::path(), stderr_path);
    const auto ready = process_->read_line(std::chrono::steady_clock::now() + std::chrono::seconds(90));
    if (!ready) throw std::runtime_error("the browser driver did not start:\n" + read_file(stderr_path_));
    version_ = nlohmann::json::parse(*ready).value("version", "");
  }
  BrowserDriver(const BrowserDriver&) = delete;
  BrowserDriver& operator=(const BrowserDriver&) = delete;
  ~BrowserDriver() {
    if (process_) process_->write_line(R"({"seq":0,"op":"close"})");
  }

  const std::string& version() const { return version_; }
  std::string stderr_text() const { return read_file(stderr_path_); }

  // Runs one command; its answer line ({"seq","ok","result"|"error"}).
  nlohmann::json command(nlohmann::json cmd, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    cmd["seq"] = ++seq_;
    if (!process_->write_line(cmd.dump())) throw std::runtime_error("cannot write to the browser driver");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const auto line = process_->read_line(deadline);
      if (!line) throw std::runtime_error("no answer from the browser driver to " + cmd.dump());
      auto j = nlohmann::json::parse(*line);
      if (j.value("seq", -1) == seq_) return j;
    }
  }
  // A command that must succeed; its result.
  nlohmann::json ok(const nlohmann::json& cmd) {
    auto answer = command(cmd);
    if (!answer.value("ok", false)) throw std::runtime_error("browser: " + cmd.dump() + " -> " + answer.dump());
    return answer["result"];
  }
  nlohmann::json navigate(const std::string& url) { return ok({{"op", "navigate"}, {"url", url}}); }
  nlohmann::json eval(const std::string& expr) { return ok({{"op", "eval"}, {"expr", expr}}); }
  // Waits until `expr` is truthy in the page (polled there, no fixed sleep); its value.
  nlohmann::json wait(const std::string& expr, int timeout_ms = 20000) {
    return ok({{"op", "wait"}, {"expr", expr}, {"timeout_ms", timeout_ms}});
  }
  void click(const std::string& selector) { ok({{"op", "click"}, {"selector", selector}}); }
  void screenshot(const std::filesystem::path& path) { ok({{"op", "screenshot"}, {"path", path.string()}}); }

 private:
  std::filesystem::path stderr_path_;
  std::unique_ptr<PipedProcess> process_;
  std::string version_;
  int seq_ = 0;
};

}  // namespace agentworks::testing
