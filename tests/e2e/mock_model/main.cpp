// The mock model API as a program, for trying the CLIs by hand: prints "listening on PORT", answers until
// killed, and writes every request to DIR/NNN-<api>.json (DIR = first argument, default: no files). REPLY (second
// argument) is the default answer; each further pair TOOL_SUFFIX ARGUMENTS_JSON scripts one tool call, in order.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "mock_model/mock_model.hpp"

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : "";
  agentworks::e2e::MockModel model;
  if (argc > 2) model.set_default_reply(argv[2]);
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string arguments = argv[i + 1];
    model.queue_tool_call({argv[i], [arguments](const agentworks::e2e::ModelRequest&) { return arguments; }});
  }
  std::printf("listening on %d\n", model.port());
  std::fflush(stdout);
  std::size_t written = 0;
  std::size_t printed = 0;
  model.on_main_turn([](const agentworks::e2e::ModelRequest&) {});
  while (true) {
    const auto all = model.requests();
    for (; written < all.size(); ++written) {
      const auto& r = all[written];
      std::printf("#%d %s %s %s last_user=%.200s\n", r.seq, r.method.c_str(), r.target.c_str(),
                  r.main_turn ? "[main]" : "[side]", r.last_user.c_str());
      std::fflush(stdout);
      if (!dir.empty()) std::ofstream(dir / (std::to_string(r.seq) + "-" + r.api + ".json")) << r.body;
    }
    const auto results = model.tool_results();
    for (; printed < results.size(); ++printed) {
      const auto& t = results[printed];
      std::printf("  tool result of %s: %.300s\n", t.tool.c_str(), t.output.c_str());
      std::fflush(stdout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}
