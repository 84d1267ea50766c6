// The server, the login and the clock: GET /v1/health (no token) says the server answers and its version,
// GET /v1/whoami with the saved token says the login is valid (401 = revoked or unknown), and the Date header of
// the health answer against local time says whether the clocks agree.
#include <cstdlib>
#include <ctime>
#include <string>

#include "doctor/doctor_check.hpp"
#include "doctor/doctor_state.hpp"
#include "agentworks/paths.hpp"
#include "embedded/process.hpp"
#include "embedded/user_units.hpp"
#include "output.hpp"

namespace agentworks::cli::doctor {
namespace {

// Skew thresholds. 5 s: timestamps people compare (received, admitted) start to disagree visibly; 60 s: beyond
// the TLS/clock tolerance most servers keep and beyond any network delay, so the clock itself is wrong.
constexpr long kSkewWarnSeconds = 5;
constexpr long kSkewFailSeconds = 60;

const std::string kLoginFix = "agentworks up (embedded server), or: agentworks login --server URL --token-stdin";

constexpr std::time_t kCertificateWarningSeconds = 14 * 86400;

std::string server_of(State& state) { return state.login() ? state.login()->server_url : std::string("-"); }

// The command that brings a server back that does not answer. The embedded one restarts on the port it used, so
// attached chats keep its address; when another program holds that port, only a new port works.
std::string restart_fix(State& state) {
  const std::string url = server_of(state);
  if (!state.login()->embedded) return "start the agentworks server at " + url + " (or log in to another one)";
  const auto colon = url.rfind(':');
  int port = 0;
  try {
    port = colon == std::string::npos ? 0 : std::stoi(url.substr(colon + 1));
  } catch (const std::exception&) {
    port = 0;
  }
  if (port > 0 && !loopback_port_free(port))
    return "agentworks up --port 0 (port " + std::to_string(port) + " is held by another program; attached chats "
           "then need `/agentworks attach` again)";
  return "agentworks up (starts the embedded server again at " + url + ")";
}

}  // namespace

std::vector<Finding> check_server(State& state) {
  // No login, no server to ask: the login check fails with the fix; this one only says it could not run.
  if (!state.login()) return one(Status::warn, "cannot check the server: " + state.login_problem(), kLoginFix);
  const ServerAnswer& h = state.health();
  if (!h.answered) {
    if (h.error_code == "untrusted_certificate") {
      return one(Status::fail, h.error, "agentworks login --server " + server_of(state) +
                                            " --ca-file CA.pem --token-stdin");
    }
    return one(Status::fail, h.error, restart_fix(state));
  }
  if (h.status != 200 || !h.body.is_object() || !h.body.contains("version")) {
    return one(Status::fail, server_of(state) + " answered GET /v1/health with HTTP " + std::to_string(h.status) +
                                 ", not an agentworks health answer",
               "agentworks login --server URL --token-stdin (the URL of an agentworks server)");
  }
  // A certificate that runs out soon takes every client down with it on that day: say so while there is time.
  if (h.certificate_expires && *h.certificate_expires - h.received_at < kCertificateWarningSeconds) {
    char date[32];
    const std::tm* tm = std::gmtime(&*h.certificate_expires);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", tm);
    const long days = static_cast<long>((*h.certificate_expires - h.received_at) / 86400);
    return one(Status::warn,
               server_of(state) + " answers, but its TLS certificate expires on " + date + " (in " +
                   std::to_string(days) + " day" + (days == 1 ? "" : "s") + "); clients refuse it from then on",
               "renew the certificate and restart agentworks-server with it (--tls-cert FILE --tls-key FILE)");
  }
  return one(Status::ok, server_of(state) + " answers, version " + text_or(h.body, "version", "?"));
}

std::vector<Finding> check_login(State& state) {
  if (!state.login()) return one(Status::fail, state.login_problem(), kLoginFix);
  const ServerAnswer& w = state.whoami();
  if (!w.answered) return one(Status::warn, "cannot check the login: " + w.error, "agentworks up");
  if (w.status == 401) {
    const std::string embedded = state.login()->embedded ? "agentworks up" : "agentworks login --server " +
                                                                               server_of(state) + " --token-stdin";
    return one(Status::fail, "the saved login (connection " + state.login()->connection_id +
                                 ") is revoked or unknown to " + server_of(state),
               embedded);
  }
  if (w.status != 200 || !w.body.is_object()) {
    return one(Status::fail, "GET /v1/whoami answered HTTP " + std::to_string(w.status), kLoginFix);
  }
  const std::string agent = text_or(w.body, "agent_name", "");
  return one(Status::ok, "connection " + text_or(w.body, "connection_id", "?") + " (" +
                             text_or(w.body, "kind", "?") + ") of account " +
                             text_or(w.body, "account_name", "?") +
                             (agent.empty() ? "" : ", agent " + agent));
}

// The systemd user unit of the embedded server, when installed: the port it would listen on (this person's, from
// server.env, else the unit's default), whether that agrees with the login, and whether another program holds it.
std::vector<Finding> check_server_unit(State& state) {
  const UnitFacts unit = user_unit_facts(kServerUnit);
  if (!unit.state.usable)
    return one(Status::ok, "not used: " + unit.state.why_not + " (agentworks up runs plain processes)");
  const std::string listen = option_value(unit.command, "--listen");
  int port = 0;
  std::string from;
  if (listen == kServerUnitListen) {
    const auto setting = server_unit_port_setting();
    port = setting ? *setting : unit.default_port;
    from = setting ? "from " + paths::server_unit_env_file().string() : "the unit's default";
  } else if (listen.rfind("127.0.0.1:", 0) == 0) {
    port = std::atoi(listen.c_str() + 10);
    from = "fixed in the unit";
  }
  if (port <= 0)
    return one(Status::warn, std::string(kServerUnit) + " listens on " + listen + ", not on a 127.0.0.1 port",
               "reinstall the package's unit (agentworks up then runs plain processes)");
  const std::string found = std::string(kServerUnit) + " listens on 127.0.0.1:" + std::to_string(port) + " (" +
                            from + ")";
  const bool running = unit.main_pid > 0 && process_alive(unit.main_pid);
  if (!running && !loopback_port_free(port))
    return one(Status::warn, found + ", which another program (another person's server?) holds",
               "agentworks up --port 0 (records a free port for your unit; attached chats then need "
               "`/agentworks attach` again)");
  if (state.login() && state.login()->embedded) {
    const std::string url = state.login()->server_url;
    const std::string own = "http://127.0.0.1:" + std::to_string(port);
    if (url != own && listen == kServerUnitListen)
      return one(Status::warn, found + ", but your login uses " + url,
                 "agentworks down, then agentworks up (records your login's port for the unit)");
  }
  return one(Status::ok, found + (running ? ", running" : ""));
}

std::vector<Finding> check_clock(State& state) {
  if (!state.login()) return one(Status::warn, "cannot compare clocks: " + state.login_problem(), kLoginFix);
  const ServerAnswer& h = state.health();
  if (!h.answered) return one(Status::warn, "cannot compare clocks: the server does not answer", "agentworks up");
  if (!h.date) {
    return one(Status::warn, "the server's answer has no Date header to compare with",
               "upgrade the server (agentworks-server sends Date)");
  }
  const long skew = static_cast<long>(h.received_at - *h.date);
  const long size = std::labs(skew);
  const std::string found = "local clock " + std::string(skew >= 0 ? "ahead of" : "behind") + " the server by " +
                            std::to_string(size) + " s (warn over " + std::to_string(kSkewWarnSeconds) +
                            " s, fail over " + std::to_string(kSkewFailSeconds) + " s)";
  if (size > kSkewFailSeconds) return one(Status::fail, found);
  if (size > kSkewWarnSeconds) return one(Status::warn, found);
  return one(Status::ok, found);
}

}  // namespace agentworks::cli::doctor
