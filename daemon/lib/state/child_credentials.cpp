#include "state/child_credentials.hpp"

#include <nlohmann/json.hpp>

#include "agentworks/private_file.hpp"
#include "agentworks/validation.hpp"

namespace agentworks::bridge {

std::filesystem::path ChildCredentials::file_for(const std::string& agent_name) const {
  // Agent names are validated ([A-Za-z0-9._-], starting with a letter or digit), so they are safe file names.
  return dir_ / (fold_name(agent_name) + ".json");
}

std::optional<ChildCredential> ChildCredentials::read(const std::string& agent_name) const {
  const auto text = read_file_if_exists(file_for(agent_name));
  if (!text) return std::nullopt;
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  ChildCredential c;
  c.server_url = j.value("server_url", "");
  c.agent_name = j.value("agent_name", "");
  c.connection_id = j.value("connection_id", "");
  c.token = j.value("token", "");
  return c;
}

std::optional<ChildCredential> ChildCredentials::load(const std::string& server_url,
                                                      const std::string& agent_name) const {
  const std::string key = fold_name(agent_name);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, read(agent_name)).first;
  const auto& c = it->second;
  if (!c || c->server_url != server_url || c->token.empty() || fold_name(c->agent_name) != key) return std::nullopt;
  return c;
}

void ChildCredentials::save(const ChildCredential& c) const {
  const nlohmann::json j = {{"server_url", c.server_url},
                            {"agent_name", c.agent_name},
                            {"connection_id", c.connection_id},
                            {"token", c.token}};
  write_private_file(file_for(c.agent_name), j.dump() + "\n");
  cache_[fold_name(c.agent_name)] = c;  // after the write: a failed write throws and leaves the cache as it was
}

void ChildCredentials::remove(const std::string& agent_name) const {
  std::error_code ec;
  std::filesystem::remove(file_for(agent_name), ec);
  cache_[fold_name(agent_name)] = std::nullopt;
}

}  // namespace agentworks::bridge
