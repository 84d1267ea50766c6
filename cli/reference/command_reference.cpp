#include "reference/command_reference.hpp"

#include <CLI/CLI.hpp>

#include "app_builder.hpp"

namespace agentworks::cli {

CliReference describe_cli() {
  CLI::App app{kCliDescription, "agentworks"};
  GlobalOptions global;
  const auto registered = build_command_tree(app, global);
  CliReference out;
  out.version = kCliVersion;
  out.description = kCliDescription;
  for (const auto& g : group_table()) out.groups.push_back({std::string(g.name), std::string(g.help)});
  for (const auto& r : registered) {
    CommandReference c;
    c.path = r.path;
    c.help = r.app->get_description();
    for (const CLI::Option* o : r.app->get_options()) {
      OptionReference opt;
      if (o->get_positional()) {
        opt.names.push_back(o->get_name());
        opt.positional = true;
      } else {
        for (const auto& l : o->get_lnames()) opt.names.push_back("--" + l);
        for (const auto& s : o->get_snames()) opt.names.push_back("-" + s);
      }
      if (opt.names.empty()) continue;
      opt.help = o->get_description();
      opt.takes_value = o->get_items_expected_min() > 0 || o->get_positional();
      c.options.push_back(std::move(opt));
    }
    out.commands.push_back(std::move(c));
  }
  return out;
}

}  // namespace agentworks::cli
