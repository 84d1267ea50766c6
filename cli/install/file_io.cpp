#include "install/file_io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "agentworks/error.hpp"

namespace agentworks::cli::install {
namespace fs = std::filesystem;

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json read_json_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return nullptr;
  const std::string text = read_text_file(path);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return nullptr;  // an empty file counts as none
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    throw Error(ErrorCode::bad_request,
                path.string() + " is not valid JSON; fix or move it and run again (agentworks left it unchanged)");
  }
  return doc;
}

bool write_file_atomic(const fs::path& path, const std::string& content) {
  std::error_code ec;
  if (fs::exists(path, ec) && read_text_file(path) == content) return false;
  fs::create_directories(path.parent_path(), ec);
  if (ec) throw Error(ErrorCode::internal, "cannot create " + path.parent_path().string() + ": " + ec.message());
  const fs::path temp = path.string() + ".agentworks-tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      fs::remove(temp, ec);
      throw Error(ErrorCode::internal, "cannot write " + temp.string() + ": " + std::strerror(errno));
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw Error(ErrorCode::internal, "cannot replace " + path.string() + ": " + ec.message());
  }
  return true;
}

std::string pretty_json(const nlohmann::json& doc) { return doc.dump(2) + "\n"; }

}  // namespace agentworks::cli::install
