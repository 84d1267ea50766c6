#include "functions/file_download.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "agentworks/base64.hpp"
#include "agentworks/error.hpp"
#include "functions/routes.hpp"

namespace agentworks::cli::functions {
using nlohmann::json;

std::string page_bytes(const json& page) {
  if (const auto it = page.find("content"); it != page.end() && it->is_string()) return it->get<std::string>();
  if (const auto it = page.find("content_base64"); it != page.end() && it->is_string()) {
    if (auto bytes = base64_decode(it->get_ref<const std::string&>())) return *bytes;
    throw Error(ErrorCode::internal, "the server sent a file page whose content_base64 is not valid base64");
  }
  throw Error(ErrorCode::internal, "the server sent a file page without content or content_base64");
}

json download_call_file(ServerClient& client, const std::string& call_id, const std::string& name, long long offset,
                        std::optional<long long> page_limit, const std::filesystem::path& output) {
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorCode::usage, "cannot write " + output.string());
  long long written = 0;
  while (true) {
    const json page = client.get(file_path(call_id, name, offset, page_limit));
    const std::string bytes = page_bytes(page);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw Error(ErrorCode::internal, "writing " + output.string() + " failed");
    written += static_cast<long long>(bytes.size());
    if (page.value("eof", false)) break;
    const long long next = page.value("next_offset", offset);
    // A page that does not move forward would loop for ever.
    if (next <= offset) throw Error(ErrorCode::internal, "the server's file page did not advance next_offset");
    offset = next;
  }
  out.close();
  return {{"call_id", call_id}, {"name", name}, {"output", output.string()}, {"bytes", written}};
}

}  // namespace agentworks::cli::functions
