// A real Crew folder for the function tests: a project directory in the temp HOME with executable scripts under
// tools/ and its declaration in .agentworks/functions.json (the format of docs/protocol.md "Crews and
// functions"). Header-only: the CLI and MCP function tests share it.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace agentworks::testing {

class CrewFolder {
 public:
  explicit CrewFolder(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_ / ".agentworks");
    std::filesystem::create_directories(dir_ / "tools");
  }

  const std::filesystem::path& dir() const { return dir_; }

  // tools/NAME with `body` after a #!/bin/sh line, mode 0755; returns "./tools/NAME" for run.command.
  std::string script(const std::string& name, const std::string& body) const {
    const auto path = dir_ / "tools" / name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    if (::chmod(path.c_str(), 0755) != 0) throw std::runtime_error("chmod " + path.string());
    return "./tools/" + name;
  }

  // One function declaration; `inputs` defaults to an object with a string "text".
  static nlohmann::json function(const std::string& name, const std::string& command,
                                 nlohmann::json inputs = nullptr, nlohmann::json output_schema = nullptr) {
    if (inputs.is_null()) {
      inputs = {{"type", "object"},
                {"properties", {{"text", {{"type", "string"}}}}},
                {"required", {"text"}},
                {"additionalProperties", false}};
    }
    nlohmann::json f = {{"name", name},
                        {"description", "test function " + name},
                        {"inputs", inputs},
                        {"run", {{"command", {command}}}},
                        {"timeout_seconds", 60},
                        {"allowed_callers", nlohmann::json::array()}};
    if (!output_schema.is_null()) f["output_schema"] = output_schema;
    return f;
  }

  // A vector, not a json: a braced list of one function would otherwise become that object, not an array.
  void declare(const std::vector<nlohmann::json>& functions) const {
    const nlohmann::json file = {{"functions", nlohmann::json(functions)}};
    std::ofstream(dir_ / ".agentworks" / "functions.json") << file.dump(2);
  }

 private:
  std::filesystem::path dir_;
};

// The scripts the tests declare. stdout is the answer, each stderr line a progress message.
inline const char* const kEchoScript = "echo \"got: $(cat)\"";
inline const char* const kProgressScript =
    "echo 'step one' >&2\necho 'step two' >&2\necho 'step three' >&2\necho done";
// A text file and a binary file (4 KiB of random bytes: not UTF-8) in the call's folder.
inline const char* const kFilesScript =
    "printf 'hello files\\n' > \"$FUNCTION_OUTPUT_DIR/report.txt\"\n"
    "head -c 4096 /dev/urandom > \"$FUNCTION_OUTPUT_DIR/blob.bin\"\n"
    "echo wrote";

// The Crew the CLI and MCP tests share: echo, progress, files, and ask (which runs `cli functions ask`).
inline void declare_client_functions(CrewFolder& crew, const std::string& cli) {
  const std::string ask_body =
      "answer=$('" + cli + "' functions ask --question 'Which branch?') || exit 7\necho \"branch: $answer\"";
  crew.declare({CrewFolder::function("echo", crew.script("echo.sh", kEchoScript)),
                CrewFolder::function("progress", crew.script("progress.sh", kProgressScript)),
                CrewFolder::function("files", crew.script("files.sh", kFilesScript)),
                CrewFolder::function("ask", crew.script("ask.sh", ask_body))});
}

}  // namespace agentworks::testing
