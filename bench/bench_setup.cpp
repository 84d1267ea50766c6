#include "bench_setup.hpp"

#include <nlohmann/json.hpp>

namespace agentworks::bench {
namespace {

std::string describe(const HttpResult& r) {
  return r.status == 0 ? r.error : "HTTP " + std::to_string(r.status) + " " + r.body.substr(0, 300);
}

}  // namespace

bool setup_agents(HttpClient& client, const std::string& prefix, std::size_t count, std::vector<BenchAgent>* agents,
                  std::string* error) {
  for (std::size_t i = 0; i < count; ++i) {
    BenchAgent agent;
    agent.name = prefix + std::to_string(i);
    const nlohmann::json reg = {{"agent_name", agent.name}, {"purpose", "load benchmark receiver"},
                                {"provider", "bench"}};
    const HttpResult r = client.request("POST", "/v1/agents", reg.dump());
    if (r.status != 200 && r.status != 201) {
      *error = "register " + agent.name + ": " + describe(r);
      return false;
    }
    const nlohmann::json att = {{"agent_name", agent.name}, {"purpose", "load benchmark receiver"},
                                {"provider", "bench"}, {"native_session_id", "bench-session-" + std::to_string(i)}};
    const HttpResult a = client.request("POST", "/v1/attachments", att.dump());
    if (a.status != 201 && a.status != 200) {
      *error = "attach " + agent.name + ": " + describe(a);
      return false;
    }
    const auto body = nlohmann::json::parse(a.body, nullptr, false);
    if (!body.is_object() || !body.contains("attachment_id") || !body["attachment_id"].is_string()) {
      *error = "attach " + agent.name + ": no attachment_id in " + a.body.substr(0, 300);
      return false;
    }
    agent.attachment_id = body["attachment_id"].get<std::string>();
    agents->push_back(std::move(agent));
  }
  return true;
}

}  // namespace agentworks::bench
