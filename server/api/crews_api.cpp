// Routes: register, list, show, reload, allow and unregister Crews; list a Crew's functions (R-F1).
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/path_inside.hpp"
#include "agentworks/validation.hpp"
#include "api/body.hpp"
#include "api/function_json.hpp"
#include "api/handlers.hpp"
#include "crews/access.hpp"
#include "declaration/agent_cli.hpp"
#include "declaration/declaration.hpp"
#include "store/crews_store.hpp"
#include "store/runners_store.hpp"
#include "store/store.hpp"

namespace agentworks::server::api {

using nlohmann::json;

namespace {

bool inside_any(const std::filesystem::path& dir, const std::vector<std::string>& roots) {
  const std::string d = dir.string();
  for (const auto& root : roots) {
    if (d == root || path_inside(root, d)) return true;
  }
  return false;
}

[[noreturn]] void refuse_outside_roots(const std::string& dir, const std::vector<std::string>& roots) {
  if (roots.empty())
    throw Error(ErrorCode::forbidden, "only the server's owner account registers Crews here; ask its administrator "
                                      "for a Crew root (agentworks-server --crew-root DIR) to register " + dir);
  std::string list;
  for (const auto& r : roots) list += (list.empty() ? "" : ", ") + r;
  throw Error(ErrorCode::forbidden, "folder " + dir + " is not inside a Crew root of this server (" + list +
                                        "); register a folder inside one");
}

// The folder as the server sees it: absolute, existing, readable, canonical (symlinks resolved). An account other
// than the owner may name only folders inside a Crew root, and learns nothing about any other path: the lexical
// check comes before the file system is asked, the canonical one after (a link inside a root leading out).
std::string crew_folder(const std::string& dir, const Connection& caller, const std::vector<std::string>& roots) {
  if (dir.empty() || dir.front() != '/')
    throw Error(ErrorCode::bad_request, "dir must be an absolute path on the server's computer (got '" + dir + "')");
  const bool owner = fold_name(caller.account_name) == "owner";
  if (!owner && !inside_any(std::filesystem::path(dir).lexically_normal(), roots)) refuse_outside_roots(dir, roots);
  std::error_code ec;
  const auto canonical = std::filesystem::canonical(dir, ec);
  if (!owner && !ec && !inside_any(canonical, roots)) refuse_outside_roots(dir, roots);
  if (ec || !std::filesystem::is_directory(canonical, ec))
    throw Error(ErrorCode::invalid_declaration, "the server cannot open folder " + dir +
                                                    " (it must exist on the server's computer and be a folder)");
  if (::access(canonical.c_str(), R_OK | X_OK) != 0)
    throw Error(ErrorCode::invalid_declaration, "the server cannot read folder " + canonical.string() +
                                                    "; it runs as another user or the folder is private");
  return canonical.string();
}

// {"claude_tools"?, "codex_sandbox"?} over `base`: a field left out keeps base's value.
functions::AgentAllowance allowance_from(const json& fields, functions::AgentAllowance base) {
  if (!fields.is_object())
    throw Error(ErrorCode::bad_request, "allow must be an object {\"claude_tools\"?: [...], \"codex_sandbox\"?: \"...\"}");
  const Body b(fields, {"claude_tools", "codex_sandbox"});
  if (auto tools = b.opt_string_array("claude_tools", functions::kMaxAllowedTools)) base.claude_tools = *tools;
  if (auto sandbox = b.opt_string("codex_sandbox")) base.codex_sandbox = *sandbox;
  functions::check_allowance(base);
  return base;
}

int max_running(Ctx& c) { return c.store.limits().crew_max_running; }

// What the person should fix before the Crew's agent functions can run: an agent CLI the server cannot find (their
// calls would fail `spawn_failed`). Registering still succeeds.
json declaration_warnings(const functions::Declaration& d) {
  json out = json::array();
  for (const auto& f : d.functions) {
    if (f.runner == functions::Runner::command || functions::find_agent_cli(f.runner)) continue;
    out.push_back("function " + f.name + ": " + functions::missing_agent_cli(f.runner) +
                  "; its calls fail spawn_failed until then");
  }
  return out;
}

// R-R1: what the serving computer sent of a served Crew: its name, the folder there, the texts of its
// functions.json and crew.json, checked here as a registration checks a folder (the server never opens it).
struct SentCrew {
  std::string host;
  std::string dir;
  std::string functions_text;
  std::optional<std::string> crew_text;
};

SentCrew sent_crew(const json& serve, const std::string& dir) {
  if (!serve.is_object())
    throw Error(ErrorCode::bad_request, "serve must be an object {\"host\", \"functions\", \"crew\"?}");
  const Body b(serve, {"host", "functions", "crew"});
  SentCrew s;
  s.host = b.string("host");
  if (s.host.empty() || s.host.size() > 64 || s.host.find_first_of("\r\n\t") != std::string::npos)
    throw Error(ErrorCode::bad_request, "serve.host names the serving computer: 1-64 characters on one line");
  if (dir.empty() || dir.front() != '/' || dir.size() > 4096 || dir.find('\0') != std::string::npos ||
      dir.find('\n') != std::string::npos)
    throw Error(ErrorCode::bad_request, "dir must be the absolute path of the Crew's folder on " + s.host);
  s.dir = dir;
  s.functions_text = b.string("functions");
  s.crew_text = b.opt_string("crew");
  return s;
}

json runner_json(const NewConnection& runner) {
  return json{{"connection_id", runner.connection.connection_id}, {"token", runner.token}};
}

}  // namespace

Response register_crew(Ctx& c) {
  const Body b(c.body, {"crew_name", "dir", "allow", "serve"});
  const std::string name = b.string("crew_name");
  if (const auto serve = c.body.find("serve"); serve != c.body.end() && !serve->is_null()) {
    const SentCrew sent = sent_crew(*serve, b.string("dir"));
    functions::AgentAllowance allowance;
    if (const auto it = c.body.find("allow"); it != c.body.end() && !it->is_null()) allowance = allowance_from(*it, allowance);
    const functions::Declaration d = functions::parse_sent_declaration(sent.functions_text, sent.crew_text, allowance, name);
    const Crew crew = server::register_crew(c.store, c.caller, name, sent.dir, functions::declaration_to_json(d),
                                            functions::allowance_to_json(allowance), sent.host);
    const NewConnection runner = start_serving(c.store, c.caller, crew);
    json out = crew_json(c.store, *crew_by_id(c.store, crew.crew_id), max_running(c));
    out["warnings"] = json::array();  // the serving computer's agent CLIs are its runner's to find
    out["runner"] = runner_json(runner);
    return json_reply(201, out);
  }
  const std::string dir = crew_folder(b.string("dir"), c.caller, c.store.limits().crew_roots);
  functions::AgentAllowance allowance;
  if (const auto it = c.body.find("allow"); it != c.body.end() && !it->is_null()) allowance = allowance_from(*it, allowance);
  const functions::Declaration d = functions::load_declaration(dir, allowance, name);
  const Crew crew = server::register_crew(c.store, c.caller, name, dir, functions::declaration_to_json(d),
                                          functions::allowance_to_json(allowance));
  json out = crew_json(c.store, crew, max_running(c));
  out["warnings"] = declaration_warnings(d);
  return json_reply(201, out);
}

Response list_crews(Ctx& c) {
  json out = json::array();
  for (const auto& crew : server::list_crews(c.store, c.caller.account_id))
    out.push_back(crew_json(c.store, crew, max_running(c)));
  return json_reply(200, json{{"crews", out}});
}

Response get_crew(Ctx& c) {
  return json_reply(200, crew_json(c.store, own_crew(c.store, c.caller, c.params.at(0)), max_running(c)));
}

Response reload_crew(Ctx& c) {
  Crew crew = own_crew(c.store, c.caller, c.params.at(0));
  if (crew.served()) {
    // R-R1: the serving computer sends its files again; the server never reads that folder.
    const Body b(c.body, {"functions", "crew"});
    const functions::Declaration d = functions::parse_sent_declaration(
        b.string("functions"), b.opt_string("crew"), functions::allowance_from_json(crew.allowance_json), crew.name);
    set_declaration(c.store, crew.crew_id, functions::declaration_to_json(d));
    json out = crew_json(c.store, *crew_by_id(c.store, crew.crew_id), max_running(c));
    out["warnings"] = json::array();
    return json_reply(200, out);
  }
  const Body b(c.body, {});
  const functions::Declaration d =
      functions::load_declaration(crew.dir, functions::allowance_from_json(crew.allowance_json), crew.name);
  crew.declaration_json = functions::declaration_to_json(d);
  set_declaration(c.store, crew.crew_id, crew.declaration_json);
  json out = crew_json(c.store, *crew_by_id(c.store, crew.crew_id), max_running(c));
  out["warnings"] = declaration_warnings(d);
  return json_reply(200, out);
}

// Sets what the Crew's agent functions may use; refused (nothing changes) while the declaration in force asks for more.
Response allow_crew(Ctx& c) {
  const Crew crew = own_crew(c.store, c.caller, c.params.at(0));
  const functions::AgentAllowance allowance = allowance_from(c.body, functions::allowance_from_json(crew.allowance_json));
  if (auto breach = functions::declaration_breach(allowance, functions::declaration_from_json(crew.declaration_json),
                                                  crew.name)) {
    throw Error(ErrorCode::invalid_declaration,
                "the new allowance is narrower than the declaration in force: function '" + breach->first + "': " +
                    breach->second.what + " under it; change .agentworks/functions.json and run `agentworks crews reload " +
                    crew.name + "` first, or allow it; the allowance is unchanged");
  }
  set_allowance(c.store, crew.crew_id, functions::allowance_to_json(allowance));
  return json_reply(200, crew_json(c.store, *crew_by_id(c.store, crew.crew_id), max_running(c)));
}

Response serve_crew(Ctx& c) {
  Crew crew = own_crew(c.store, c.caller, c.params.at(0));
  if (!crew.served())
    throw Error(ErrorCode::conflict, "Crew " + crew.name + " is run by the server from its folder " + crew.dir +
                                         "; to serve it from your computer, `agentworks crews unregister " + crew.name +
                                         "` and register it there with --serve-here");
  const Body b(c.body, {"dir", "serve"});
  const SentCrew sent = sent_crew(c.body.contains("serve") ? c.body["serve"] : json(nullptr), b.string("dir"));
  const functions::Declaration d = functions::parse_sent_declaration(
      sent.functions_text, sent.crew_text, functions::allowance_from_json(crew.allowance_json), crew.name);
  set_declaration(c.store, crew.crew_id, functions::declaration_to_json(d));
  set_served_from(c.store, crew.crew_id, sent.host, sent.dir);
  crew = *crew_by_id(c.store, crew.crew_id);
  const NewConnection runner = start_serving(c.store, c.caller, crew);
  json out = crew_json(c.store, *crew_by_id(c.store, crew.crew_id), max_running(c));
  out["warnings"] = json::array();
  out["runner"] = runner_json(runner);
  return json_reply(200, out);
}

Response stop_serving_crew(Ctx& c) {
  const Body b(c.body, {});
  const Crew crew = own_crew(c.store, c.caller, c.params.at(0));
  if (!crew.served())
    throw Error(ErrorCode::conflict, "Crew " + crew.name + " is run by the server, not served from a computer");
  const auto ended = stop_serving(c.store, c.caller, crew);
  json out = crew_json(c.store, *crew_by_id(c.store, crew.crew_id), max_running(c));
  out["cancelled_calls"] = ended;
  return json_reply(200, out);
}

Response unregister_crew(Ctx& c) {
  const Crew crew = own_crew(c.store, c.caller, c.params.at(0));
  if (crew.served() && crew.runner_conn) stop_serving(c.store, c.caller, crew);  // its runner goes with it
  remove_crew(c.store, crew.crew_id);
  return json_reply(200, json{{"removed", true}, {"crew_name", crew.name}});
}

Response list_functions(Ctx& c) {
  const Crew crew = functions::admitted_crew(c.store, c.caller, c.params.at(0));
  json out = json::array();
  for (const auto& f : functions::declaration_from_json(crew.declaration_json).functions)
    if (functions::may_call(c.caller, crew, f)) out.push_back(function_json(f));
  return json_reply(200, json{{"crew_id", crew.crew_id}, {"crew_name", crew.name}, {"functions", out}});
}

}  // namespace agentworks::server::api
