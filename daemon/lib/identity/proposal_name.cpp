#include "identity/proposal_name.hpp"

#include "agentworks/validation.hpp"
#include "agentworks/providers.hpp"

namespace agentworks::bridge {
namespace {

constexpr std::size_t kSuffixRoom = 4;  // "-999"

bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'; }
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

std::string fold_folder(const std::string& folder) {
  std::string out;
  for (char c : folder) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (!name_char(c)) c = '-';
    if (c == '-' && !out.empty() && out.back() == '-') continue;
    out.push_back(c);
  }
  std::size_t start = 0;
  while (start < out.size() && !alnum(out[start])) ++start;
  out.erase(0, start);
  while (!out.empty() && !alnum(out.back())) out.pop_back();
  return out;
}

}  // namespace

std::string proposal_base(const std::string& cwd, const std::string& provider) {
  std::string path = cwd;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string suffix = fold_folder(provider);
  if (suffix.empty()) suffix = "agent";
  std::string base = fold_folder(folder);
  if (base.empty()) base = "chat";
  const std::size_t room = kMaxAgentNameLength - kSuffixRoom - suffix.size() - 1;
  if (base.size() > room) base.resize(room);
  while (!base.empty() && !alnum(base.back())) base.pop_back();
  std::string name = base + "-" + suffix;
  return valid_agent_name(name) ? name : "chat-agent";
}

std::string unique_name(const std::string& base, const std::set<std::string>& taken_folded) {
  if (!taken_folded.count(fold_name(base))) return base;
  for (int i = 2; i < 1000; ++i) {
    const std::string candidate = base + "-" + std::to_string(i);
    if (!taken_folded.count(fold_name(candidate))) return candidate;
  }
  return base + "-" + std::to_string(1000);
}

std::string provider_display(const std::string& provider) {
  if (const auto known = provider_from_name(provider)) return std::string(provider_info(*known).display_name);
  return provider;
}

std::string default_purpose(const std::string& provider, const std::string& cwd) {
  std::string purpose = provider_display(provider) + " chat";
  if (!cwd.empty()) purpose += " in " + cwd;
  // At most 500 code points: cut on a code point boundary.
  std::size_t chars = 0;
  for (std::size_t i = 0; i < purpose.size(); ++i) {
    if ((static_cast<unsigned char>(purpose[i]) & 0xC0) != 0x80 && ++chars > kMaxPurposeChars) {
      purpose.resize(i);
      break;
    }
  }
  return purpose;
}

}  // namespace agentworks::bridge
