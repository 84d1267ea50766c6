// Drives tests/mcp/driver.mjs: a node process running the real MCP client (@modelcontextprotocol/sdk Client +
// StdioClientTransport) which starts `agentworks mcp serve` as its own child. The node process therefore stands
// in for an agent CLI: it is the MCP server's provider ancestor, and its key (pid + start time) is what a test
// attaches a session for. Commands and answers are JSON lines over pipes; every read has a deadline.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "testing/piped_process.hpp"
#include "testing/process.hpp"

#ifndef AGENTWORKS_MCP_TEST_DIR
#error "AGENTWORKS_MCP_TEST_DIR must be defined by CMake"
#endif

namespace agentworks::testing {

inline std::filesystem::path mcp_test_dir() { return AGENTWORKS_MCP_TEST_DIR; }

// The text of an MCP tool result: its text content parts, joined.
inline std::string text_of(const nlohmann::json& tool_result) {
  std::string out;
  for (const auto& c : tool_result.value("content", nlohmann::json::array())) out += c.value("text", "");
  return out;
}

// Absolute path of `name` on PATH, "" when absent.
inline std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string dir = rest.substr(0, colon);
    rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    const auto candidate = std::filesystem::path(dir) / name;
    if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// Why the MCP client cannot run here ("" when it can): node and `npm ci` in tests/mcp are needed.
inline std::string mcp_client_missing() {
  if (find_on_path("node").empty()) return "node is not on PATH";
  if (!std::filesystem::exists(mcp_test_dir() / "node_modules" / "@modelcontextprotocol" / "sdk")) {
    return "the MCP client is not installed: run `npm ci` in " + mcp_test_dir().string();
  }
  return {};
}

class McpDriver {
 public:
  McpDriver(const EnvOverrides& env, const std::filesystem::path& stderr_path) {
    const std::string node = find_on_path("node");
    if (node.empty()) throw std::runtime_error("node is not on PATH");
    // Its own process group: the teardown (PipedProcess's destructor) kills node and its MCP server child together.
    process_ = std::make_unique<PipedProcess>(std::vector<std::string>{node, (mcp_test_dir() / "driver.mjs").string()},
                                              env, std::filesystem::path(), stderr_path);
    stderr_path_ = stderr_path;
    const auto ready = next_line(std::chrono::seconds(30));
    if (!ready) throw std::runtime_error("the MCP driver did not start:\n" + read_file(stderr_path_));
    const auto j = nlohmann::json::parse(*ready);
    key_ = {{"pid", j.at("pid")}, {"start", j.at("start")}};
  }
  McpDriver(const McpDriver&) = delete;
  McpDriver& operator=(const McpDriver&) = delete;

  // {"pid": N, "start": "T"} of the node process: the MCP server's provider ancestor.
  const nlohmann::json& process_key() const { return key_; }
  std::string stderr_text() const { return read_file(stderr_path_); }

  // Runs one driver command; returns its line ({"seq","ok","result"|"error"}).
  nlohmann::json command(nlohmann::json cmd, std::chrono::seconds timeout = std::chrono::seconds(45)) {
    return await(send(std::move(cmd)), timeout);
  }
  // Sends one command without waiting (e.g. a tool call that blocks until the test acts); returns its seq.
  int send(nlohmann::json cmd) {
    cmd["seq"] = ++seq_;
    if (!process_->write_line(cmd.dump())) throw std::runtime_error("cannot write to the MCP driver");
    return seq_;
  }
  // The answer line of the command `seq` sent (answers of earlier commands are skipped).
  nlohmann::json await(int seq, std::chrono::seconds timeout = std::chrono::seconds(45)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      const auto got = next_line(left);
      if (!got) throw std::runtime_error("no answer from the MCP driver to command " + std::to_string(seq) + "\n" + stderr_text());
      auto j = nlohmann::json::parse(*got);
      if (j.contains("notification")) {
        notifications_.push_back(j["notification"]);
        continue;
      }
      if (j.value("seq", -1) == seq) return j;
    }
  }

  // A command that must succeed; its result.
  nlohmann::json ok(const nlohmann::json& cmd) {
    auto answer = command(cmd);
    if (!answer.value("ok", false)) {
      throw std::runtime_error("MCP driver command failed: " + cmd.dump() + " -> " + answer.dump() + "\n" +
                               stderr_text());
    }
    return answer["result"];
  }

  // Starts the MCP server `args` as the client's child; `env` is added to its environment, `elicit` (an
  // ElicitResult) makes the client advertise elicitation and answer every elicitation/create with it.
  nlohmann::json start(const std::vector<std::string>& args, const nlohmann::json& env = nullptr,
                       const nlohmann::json& elicit = nullptr) {
    nlohmann::json cmd = {{"op", "start"}, {"command", args.front()},
                          {"args", std::vector<std::string>(args.begin() + 1, args.end())}};
    if (!env.is_null()) cmd["env"] = env;
    if (!elicit.is_null()) cmd["elicit"] = elicit;
    return ok(cmd);
  }
  // tools/call; the result object ({content, isError, structuredContent}) or the driver's error line.
  nlohmann::json call(const std::string& tool, const nlohmann::json& arguments,
                      const nlohmann::json& meta = nullptr) {
    nlohmann::json cmd = {{"op", "call"}, {"name", tool}, {"arguments", arguments}};
    if (!meta.is_null()) cmd["meta"] = meta;
    return command(cmd);
  }

  // The next server notification not yet returned (in arrival order), or nullopt after the timeout.
  std::optional<nlohmann::json> next_notification(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (consumed_ >= notifications_.size()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      const auto got = next_line(left);
      if (!got) return std::nullopt;
      auto j = nlohmann::json::parse(*got);
      if (j.contains("notification")) notifications_.push_back(j["notification"]);
    }
    return notifications_[consumed_++];
  }
  const std::vector<nlohmann::json>& notifications() const { return notifications_; }

 private:
  std::optional<std::string> next_line(std::chrono::milliseconds timeout) {
    return process_->read_line(std::chrono::steady_clock::now() + timeout);
  }

  std::unique_ptr<PipedProcess> process_;
  int seq_ = 0;
  nlohmann::json key_;
  std::filesystem::path stderr_path_;
  std::vector<nlohmann::json> notifications_;
  std::size_t consumed_ = 0;
};

}  // namespace agentworks::testing
