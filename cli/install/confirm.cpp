#include "install/confirm.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <string>

#include "agentworks/error.hpp"

namespace agentworks::cli::install {

void confirm_on_terminal(const std::string& question, bool yes) {
  if (yes) return;
  if (::isatty(STDIN_FILENO) == 0) {
    throw Error(ErrorCode::usage,
                "this needs the person's confirmation on a terminal, and stdin is not one; run it in a terminal, "
                "or pass --yes to confirm (nothing was changed)");
  }
  std::cerr << question << " [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) answer.clear();
  answer.erase(std::remove_if(answer.begin(), answer.end(), [](unsigned char c) { return std::isspace(c) != 0; }),
               answer.end());
  std::transform(answer.begin(), answer.end(), answer.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (answer != "y" && answer != "yes") {
    throw Error(ErrorCode::usage, "not confirmed; nothing was changed");
  }
}

}  // namespace agentworks::cli::install
