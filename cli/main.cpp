#include "command.hpp"

int main(int argc, char** argv) { return agentworks::cli::run_cli(argc, argv); }
