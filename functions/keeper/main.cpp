// agentworks-keeper: stands between its host and one function execution (keeper/keeper.hpp).
// Started only by the server; kept apart from it so that starting one costs an exec of a small program.
#include <cstring>

#include "keeper/keeper.hpp"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--launcher") == 0) return agentworks::functions::keeper::launcher_main(argc, argv);
  return agentworks::functions::keeper::keeper_main(argc, argv);
}
