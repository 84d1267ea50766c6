// The mock model API as a program, for trying the CLIs by hand: prints "listening on PORT", answers until
// killed, and writes every request to DIR/NNN-<api>.json (DIR = first argument, default: no files).
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
  std::printf("listening on %d\n", model.port());
  std::fflush(stdout);
  std::size_t written = 0;
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
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}
