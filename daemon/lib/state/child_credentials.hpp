// The attached agents' child connections (R-B19, R-B21): one per agent name and server, stored 0600 in
// <state>/children/<folded name>.json. The bridge reuses a stored child when the same agent attaches again.
// The bridge is the only writer of these files, so each is read once and then answered from memory (every take and
// release check needs the token; reading the file each time cost a syscall chain on the hook's path).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace agentworks::bridge {

struct ChildCredential {
  std::string server_url;
  std::string agent_name;
  std::string connection_id;
  std::string token;
};

class ChildCredentials {
 public:
  explicit ChildCredentials(std::filesystem::path dir) : dir_(std::move(dir)) {}
  // The stored child for this agent on this server, if any (a child of another server does not count).
  std::optional<ChildCredential> load(const std::string& server_url, const std::string& agent_name) const;
  void save(const ChildCredential& credential) const;
  void remove(const std::string& agent_name) const;

 private:
  std::filesystem::path file_for(const std::string& agent_name) const;
  std::optional<ChildCredential> read(const std::string& agent_name) const;
  std::filesystem::path dir_;
  mutable std::map<std::string, std::optional<ChildCredential>> cache_;  // by folded name; nullopt: no file
};

}  // namespace agentworks::bridge
