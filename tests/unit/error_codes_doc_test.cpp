// docs/protocol.md's error table says what the code does: every code of AGENTWORKS_ERROR_CODES once, with its
// HTTP status (or "—" for the client-side codes that never travel on a wire) and its exit code, and no other.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "agentworks/error.hpp"

namespace aw = agentworks;

namespace {

struct DocRow {
  std::string http;
  int exit = -1;
};

std::map<std::string, DocRow> protocol_doc_error_rows() {
  std::ifstream in(AGENTWORKS_SOURCE_DIR "/docs/protocol.md");
  EXPECT_TRUE(in) << "cannot read docs/protocol.md";
  const std::regex row(R"(^\| `([a-z_]+)` \| (\d{3}|—) \| (\d) \|)");
  std::map<std::string, DocRow> rows;
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!std::regex_search(line, m, row)) continue;
    EXPECT_FALSE(rows.contains(m[1].str())) << "docs/protocol.md lists " << m[1] << " twice";
    rows[m[1].str()] = DocRow{m[2].str(), std::stoi(m[3].str())};
  }
  return rows;
}

bool client_side_only(aw::ErrorCode code) {
  return code == aw::ErrorCode::unreachable || code == aw::ErrorCode::usage ||
         code == aw::ErrorCode::untrusted_certificate;
}

}  // namespace

TEST(ErrorCodes, ProtocolDocTableMatchesTheOneList) {
  auto rows = protocol_doc_error_rows();
  int codes = 0;
#define AGENTWORKS_CHECK_ROW(name, status, exit_enum, when)                                                  \
  {                                                                                                   \
    ++codes;                                                                                          \
    const auto code = aw::ErrorCode::name;                                                            \
    const auto found = rows.find(#name);                                                              \
    if (found == rows.end()) {                                                                        \
      ADD_FAILURE() << "docs/protocol.md has no row for " #name;                                      \
    } else {                                                                                          \
      EXPECT_EQ(found->second.http, client_side_only(code) ? "—" : std::to_string(status)) << #name; \
      EXPECT_EQ(found->second.exit, static_cast<int>(aw::exit_enum)) << #name;                        \
      rows.erase(found);                                                                              \
    }                                                                                                 \
  }
  AGENTWORKS_ERROR_CODES(AGENTWORKS_CHECK_ROW)
#undef AGENTWORKS_CHECK_ROW
  EXPECT_EQ(codes, static_cast<int>(aw::ErrorCode::usage) + 1);
  for (const auto& [name, row] : rows) ADD_FAILURE() << "docs/protocol.md lists " << name << ", which is no error code";
}
