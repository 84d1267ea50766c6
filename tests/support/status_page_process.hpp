// `agentworks ui --json --no-open --port 0` as a test's child process: its link (read from the first stdout
// line), port and stderr; SIGTERM at the end, as Ctrl-C would.
#pragma once

#include <signal.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "testing/binaries.hpp"
#include "testing/piped_process.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::testing {

class StatusPageProcess {
 public:
  explicit StatusPageProcess(TempHome& home) : stderr_path_(home.path("ui.err")) {
    process_ = std::make_unique<PipedProcess>(
        std::vector<std::string>{cli_binary(), "ui", "--json", "--no-open", "--port", "0"}, home.env(),
        std::filesystem::path(), stderr_path_);
    const auto line = process_->read_line(std::chrono::steady_clock::now() + std::chrono::seconds(20));
    if (!line) throw std::runtime_error("agentworks ui printed no link:\n" + read_file(stderr_path_));
    const auto j = nlohmann::json::parse(*line);
    url_ = j.at("url").get<std::string>();
    port_ = j.at("port").get<int>();
  }
  StatusPageProcess(const StatusPageProcess&) = delete;
  StatusPageProcess& operator=(const StatusPageProcess&) = delete;

  const std::string& url() const { return url_; }
  int port() const { return port_; }
  // "/?token=…": the link without its origin.
  std::string path_and_query() const { return url_.substr(url_.find('/', std::string("http://").size())); }
  std::string token() const { return url_.substr(url_.find("token=") + 6); }
  std::string stderr_text() const { return read_file(stderr_path_); }
  pid_t pid() const { return process_->pid(); }
  // SIGTERM and the exit code (nullopt when it did not stop in time); next_line() then reads its last line.
  std::optional<int> stop() {
    ::kill(process_->pid(), SIGTERM);
    return process_->wait_exit(std::chrono::seconds(20));
  }
  const std::string& transcript() const { return process_->transcript(); }
  std::optional<std::string> next_line(std::chrono::seconds timeout) {
    return process_->read_line(std::chrono::steady_clock::now() + timeout);
  }

 private:
  std::filesystem::path stderr_path_;
  std::unique_ptr<PipedProcess> process_;
  std::string url_;
  int port_ = 0;
};

}  // namespace agentworks::testing
