#include "serving/served_crews.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/paths.hpp"
#include "agentworks/private_file.hpp"
#include "agentworks/regular_file.hpp"
#include "agentworks/validation.hpp"
#include "declaration/declaration.hpp"

namespace agentworks::cli {

using nlohmann::json;

namespace {

std::filesystem::path record_path(const std::string& name) {
  if (!valid_agent_name(name)) throw Error(ErrorCode::invalid_name, "'" + name + "' is not a Crew name");
  return served_crews_dir() / (fold_name(name) + ".json");
}

ServedCrew from_json(const json& j, const std::filesystem::path& path) {
  try {
    ServedCrew c;
    c.crew_id = j.at("crew_id").get<std::string>();
    c.crew_name = j.at("crew_name").get<std::string>();
    c.dir = j.at("dir").get<std::string>();
    c.server_url = j.at("server_url").get<std::string>();
    c.ca_file = j.value("ca_file", "");
    c.host = j.at("host").get<std::string>();
    c.token = j.at("token").get<std::string>();
    return c;
  } catch (const json::exception& e) {
    throw Error(ErrorCode::bad_request, path.string() + " is not a served Crew's record (" + e.what() +
                                            "); remove it and register the Crew again with --serve-here");
  }
}

}  // namespace

std::filesystem::path served_crews_dir() { return paths::served_crews_dir(); }

void save_served_crew(const ServedCrew& c) {
  make_private_dirs(served_crews_dir());
  const json j{{"crew_id", c.crew_id}, {"crew_name", c.crew_name}, {"dir", c.dir}, {"server_url", c.server_url},
               {"ca_file", c.ca_file}, {"host", c.host}, {"token", c.token}};
  write_private_file(record_path(c.crew_name), j.dump(2) + "\n");
}

std::optional<ServedCrew> load_served_crew(const std::string& name) {
  const auto path = record_path(name);
  const auto text = read_file_if_exists(path);
  if (!text) return std::nullopt;
  const json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) throw Error(ErrorCode::bad_request, path.string() + " is not JSON; remove it and register the "
                                                                            "Crew again with --serve-here");
  return from_json(j, path);
}

void forget_served_crew(const std::string& name) {
  std::error_code ec;
  std::filesystem::remove(record_path(name), ec);
}

std::vector<ServedCrew> served_crews() {
  std::vector<ServedCrew> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(served_crews_dir(), ec)) {
    if (entry.path().extension() != ".json") continue;
    try {
      if (auto c = load_served_crew(entry.path().stem().string())) out.push_back(std::move(*c));
    } catch (const Error&) {
      // an unreadable record serves nothing; `crews serve NAME` names it
    }
  }
  return out;
}

json sent_declaration(const std::string& dir, const std::string& crew_name) {
  namespace fn = agentworks::functions;
  auto read = [](const std::filesystem::path& path) -> std::optional<std::string> {
    const RegularFileRead file = read_regular_file(path, 1024 * 1024);
    if (file.outcome == RegularFileRead::Outcome::missing) return std::nullopt;
    if (file.outcome != RegularFileRead::Outcome::ok)
      throw Error(ErrorCode::invalid_declaration, path.string() + ": cannot read it: " + file.reason);
    return file.text;
  };
  const auto functions_path = fn::declaration_path(dir);
  const auto functions = read(functions_path);
  if (!functions)
    throw Error(ErrorCode::invalid_declaration, functions_path.string() + ": no such file (create it; "
                                                "docs/functions.md shows the format)");
  const auto crew_path = fn::crew_file_path(dir);
  const auto crew = read(crew_path);
  // The texts that are sent, checked here as the server checks them (with the commands resolved in this folder);
  // the server judges them against the Crew's own allowance.
  fn::Declaration d = fn::parse_declaration(*functions, dir, functions_path.string(), fn::widest_allowance(), crew_name);
  if (crew) fn::parse_crew_file(*crew, crew_path.string(), fn::widest_allowance(), crew_name, d);
  return json{{"functions", *functions}, {"crew", crew ? json(*crew) : json(nullptr)}};
}

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "this computer";
  return std::string(name).substr(0, 64);
}

}  // namespace agentworks::cli
