#include "store/grants_store.hpp"

#include "agentworks/validation.hpp"
#include "clock.hpp"
#include "store/store.hpp"

namespace agentworks::server {
namespace {

// Stored as "*" for all, else the entries one per line (names and ids hold no line breaks).
constexpr const char* kAll = "*";

FunctionGrant parse_grant(const std::string& text) {
  FunctionGrant g;
  if (text == kAll) {
    g.all = true;
    return g;
  }
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) g.crews.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return g;
}

std::string grant_text(const FunctionGrant& g) {
  if (g.all) return kAll;
  std::string out;
  for (const auto& c : g.crews) out += (out.empty() ? "" : "\n") + c;
  return out;
}

}  // namespace

FunctionGrant function_grant(Store& store, const std::string& account_id, const std::string& agent_name) {
  Q q(store, "SELECT functions FROM agent_grants WHERE account_id = ? AND name_fold = ?");
  q->bind(1, account_id).bind(2, fold_name(agent_name));
  if (!q->step()) return FunctionGrant{};
  return parse_grant(q->text(0));
}

void set_function_grant(Store& store, const std::string& account_id, const std::string& agent_name,
                        const FunctionGrant& grant) {
  {
    Q q(store, "DELETE FROM agent_grants WHERE account_id = ? AND name_fold = ?");
    q->bind(1, account_id).bind(2, fold_name(agent_name)).run();
  }
  if (grant.empty()) return;
  Q q(store, "INSERT INTO agent_grants(account_id, name_fold, functions, granted_at) VALUES(?, ?, ?, ?)");
  q->bind(1, account_id).bind(2, fold_name(agent_name)).bind(3, grant_text(grant)).bind(4, now()).run();
}

}  // namespace agentworks::server
