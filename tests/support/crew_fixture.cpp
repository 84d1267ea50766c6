#include "support/crew_fixture.hpp"

#include <algorithm>
#include <iterator>


#include <fstream>
#include <stdexcept>

#include "testing/wait.hpp"

namespace agentworks::testing {

namespace fs = std::filesystem;

bool is_terminal_status(const std::string& status) {
  return status == "completed" || status == "failed" || status == "cancelled" || status == "interrupted";
}

std::string CrewTest::account_id_of(const HttpClient& http) {
  return http_json(http, "GET", "/v1/whoami", std::nullopt, 200).at("account_id").get<std::string>();
}

fs::path CrewTest::make_crew_dir(const std::string& name) {
  const fs::path dir = crew_dir(name);
  fs::create_directories(dir / ".agentworks");
  fs::create_directories(dir / "tools");
  fs::create_directories(dir / "gate");
  return dir;
}

void CrewTest::write_text(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void CrewTest::write_script(const fs::path& dir, const std::string& rel, const std::string& body) {
  const fs::path path = dir / rel;
  write_text(path, "#!/bin/sh\n" + body + "\n");
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

void CrewTest::write_functions(const fs::path& dir, const json& functions) {
  write_text(dir / ".agentworks" / "functions.json", json{{"functions", functions}}.dump(2) + "\n");
}

json CrewTest::function_decl(const std::string& name, const json& extra, const std::string& script) {
  json f = {{"name", name},
            {"description", "test function " + name},
            {"inputs", {{"type", "object"}}},
            {"run", {{"command", json::array({"./tools/" + (script.empty() ? name + ".sh" : script)})}}},
            {"timeout_seconds", 120}};
  for (const auto& [key, value] : extra.items()) f[key] = value;
  return f;
}

json CrewTest::make_crew(const std::string& name, const json& functions,
                         const std::vector<std::pair<std::string, std::string>>& scripts) {
  const fs::path dir = make_crew_dir(name);
  for (const auto& [rel, body] : scripts) write_script(dir, rel, body);
  write_functions(dir, functions);
  const HttpResponse r = register_crew(owner_http(), name, dir);
  if (r.status != 201) throw std::runtime_error("registering Crew " + name + " failed: " + describe(r));
  return parse_json(r.body);
}

HttpResponse CrewTest::register_crew(const HttpClient& http, const std::string& name, const fs::path& dir) {
  return http.post("/v1/crews", json{{"crew_name", name}, {"dir", dir.string()}}.dump());
}

HttpResponse CrewTest::reload_crew(const HttpClient& http, const std::string& crew) {
  return http.post("/v1/crews/" + crew + "/reload", "{}");
}

HttpResponse CrewTest::call(const HttpClient& http, const std::string& crew, const std::string& function,
                            const json& arguments, const json& extra) {
  json body = {{"function", function}, {"arguments", arguments}};
  for (const auto& [key, value] : extra.items()) body[key] = value;
  return http.request("POST", "/v1/crews/" + crew + "/calls", body.dump(), {}, std::chrono::seconds(60));
}

json CrewTest::call_ok(const std::string& crew, const std::string& function, const json& arguments,
                       const json& extra, int expected_status) {
  const HttpResponse r = call(owner_http(), crew, function, arguments, extra);
  if (r.status != expected_status) {
    throw std::runtime_error("call " + crew + "/" + function + " expected HTTP " + std::to_string(expected_status) +
                             ", got " + describe(r));
  }
  return parse_json(r.body);
}

HttpResponse CrewTest::status_as(const HttpClient& http, const std::string& call_id, const std::string& query) {
  return http.request("GET", "/v1/calls/" + call_id + (query.empty() ? "" : "?" + query), std::nullopt, {},
                      std::chrono::seconds(60));
}

json CrewTest::status(const std::string& call_id, const std::string& query) {
  const HttpResponse r = status_as(owner_http(), call_id, query);
  if (r.status != 200) throw std::runtime_error("status of " + call_id + " failed: " + describe(r));
  return parse_json(r.body);
}

json CrewTest::wait_terminal(const std::string& call_id, std::chrono::milliseconds timeout) {
  return wait_status(call_id, [](const json& c) { return is_terminal_status(c.value("status", "")); }, timeout);
}

HttpResponse CrewTest::file_page(const HttpClient& http, const std::string& call_id, const std::string& name,
                                 std::optional<long long> offset, std::optional<long long> limit) {
  std::string path = "/v1/calls/" + call_id + "/file?name=" + url_encode(name);
  if (offset) path += "&offset=" + std::to_string(*offset);
  if (limit) path += "&limit=" + std::to_string(*limit);
  return http.get(path);
}

std::size_t CrewTest::call_folder_count(const std::string& crew) const {
  const fs::path calls = crew_dir(crew) / ".calls";
  std::error_code ec;
  if (!fs::exists(calls, ec)) return 0;
  std::size_t n = 0;
  for (auto it = fs::directory_iterator(calls, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->path().filename().string().rfind("call_", 0) == 0) ++n;
  return n;
}

std::size_t CrewTest::line_count(const fs::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

bool CrewTest::wait_file(const fs::path& path, std::chrono::milliseconds timeout) {
  return wait_until([&] { return fs::exists(path); }, timeout);
}

bool CrewTest::wait_lines(const fs::path& path, std::size_t lines, std::chrono::milliseconds timeout) {
  return wait_until([&] { return line_count(path) >= lines; }, timeout);
}

std::vector<pid_t> CrewTest::processes_in(const fs::path& dir, const std::string& part) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code link_ec;
    if (fs::read_symlink(it->path() / "cwd", link_ec) != dir || link_ec) continue;
    // read_file, not istreambuf_iterator: a process that exits between open and read answers ESRCH, which the
    // iterator turns into an exception; here it only means the process is gone.
    std::string cmdline = read_file(it->path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(part) != std::string::npos) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

pid_t CrewTest::read_pid(const fs::path& path) {
  pid_t pid = 0;
  if (!wait_until([&] {
        std::ifstream in(path);
        long value = 0;
        if (in >> value && value > 0) {
          pid = static_cast<pid_t>(value);
          return true;
        }
        return false;
      })) {
    throw std::runtime_error("no pid in " + path.string());
  }
  return pid;
}

void CrewTest::stop_server(bool graceful) {
  port_ = server_->port();
  if (graceful) {
    server_->stop();
  } else {
    server_->kill();
  }
}

void CrewTest::start_again_same_port() {
  ServerOptions o;
  o.data_dir = server_->data_dir();
  o.listen = "127.0.0.1:" + std::to_string(port_);
  o.env = server_env();
  server_.reset();
  // A new ServerProcess writes server.1.stdout beside the data again: move the old logs away first, or its
  // readiness check would read the old run's "listening on" line before the new server is up.
  static int restarts = 0;
  ++restarts;
  const fs::path logs = o.data_dir.parent_path();
  for (const auto& entry : fs::directory_iterator(logs)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("server.", 0) == 0 && (name.ends_with(".stdout") || name.ends_with(".stderr"))) {
      fs::rename(entry.path(), logs / ("previous-" + std::to_string(restarts) + "-" + name));
    }
  }
  server_ = std::make_unique<ServerProcess>(o);
}

std::vector<std::string> CrewTest::message_texts(const json& call) {
  std::vector<std::string> out;
  for (const auto& m : call.at("messages")) out.push_back(m.at("text").get<std::string>());
  return out;
}

std::vector<std::string> CrewTest::event_types(const json& call) {
  std::vector<std::string> out;
  for (const auto& e : call.at("events")) out.push_back(e.at("type").get<std::string>());
  return out;
}

std::string CrewTest::blocking_script(const std::string& gate, const std::string& started) {
  return "echo \"$AGENTWORKS_CALL_ID\" >> " + started + "\n" +
         "while [ ! -e " + gate + " ]; do sleep 0.02; done\n"
         "echo released";
}

void CrewTest::open_gate(const fs::path& dir, const std::string& gate) { write_text(dir / gate, "open\n"); }

std::string base64_decode(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int bits = 0;
  unsigned buffer = 0;
  for (const char c : text) {
    const int v = value(c);
    if (v < 0) continue;  // '=' padding and line breaks
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFFu));
    }
  }
  return out;
}

std::string trim_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace agentworks::testing
