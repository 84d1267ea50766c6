// The page's files (cli/ui/assets/), compiled into the binary by cmake/embed_page_assets.cmake: nothing is read
// from disk or downloaded at run time.
#pragma once

#include <optional>
#include <string_view>

namespace agentworks::cli::ui {

struct PageAsset {
  std::string_view path;  // "/index.html", "/app.js", "/app.css"
  std::string_view content_type;
  std::string_view content;
};

std::optional<PageAsset> find_page_asset(std::string_view path);

}  // namespace agentworks::cli::ui
