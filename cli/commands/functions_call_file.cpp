// agentworks functions call-file --call ID --file NAME [--offset BYTES] [--limit BYTES] [--output PATH] (also
// `crews call-file`): one page of a call's output file, or with --output every page from --offset written to PATH.
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "functions/file_download.hpp"
#include "functions/routes.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class FunctionsCallFile final : public Command {
 public:
  void define(Options& options) override {
    options.call_id(call_id_).required();
    options.option("--file", name_, "The file, relative to the call's folder (see files in call-status)").required();
    options.option("--offset", offset_, "Byte offset to start at (default 0)");
    options.option("--limit", limit_, "Bytes per page (1-2097152, default 262144)");
    options.option("--output", output_, "Write the file (every page from --offset) to this path");
  }

  json run(const Context& ctx) override {
    // The paths are checked (ranges, an empty name) before anything is sent.
    const std::string path = functions::file_path(call_id_, name_, offset_, limit_);
    Config config = require_login(ctx);
    ServerClient client = client_for(config);
    if (!output_) return client.get(path);
    return functions::download_call_file(client, call_id_, name_, offset_.value_or(0), limit_,
                                         std::filesystem::absolute(*output_));
  }

  void print(const json& result) const override {
    if (output_) {
      std::cout << "wrote " << result.value("bytes", 0LL) << " bytes of " << text_or(result, "name") << " to "
                << text_or(result, "output") << "\n";
      return;
    }
    // The text form is the page's bytes (decoded when binary) so `> file` keeps them; the position goes to stderr.
    const std::string bytes = functions::page_bytes(result);
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    if (!result.value("eof", true)) {
      // On a terminal both streams share the screen: the hint starts on a line of its own.
      std::cerr << (bytes.empty() || bytes.back() == '\n' ? "" : "\n") << "agentworks: more of "
                << text_or(result, "name") << " follows: --offset "
                << result.value("next_offset", 0LL) << " (of " << result.value("size", 0LL) << " bytes)\n";
    }
  }

 private:
  std::string call_id_;
  std::string name_;
  std::optional<long long> offset_;
  std::optional<long long> limit_;
  std::optional<std::string> output_;
};

}  // namespace

std::unique_ptr<Command> make_functions_call_file() { return std::make_unique<FunctionsCallFile>(); }
std::unique_ptr<Command> make_crews_call_file() { return std::make_unique<FunctionsCallFile>(); }

}  // namespace agentworks::cli
