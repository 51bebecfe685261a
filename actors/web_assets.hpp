// The web view's page (docs/web.md): hand-written HTML, CSS and JavaScript
// compiled into the hub, so that it needs no files beside it, no build step
// and no CDN, and works offline.
#pragma once

#include <string_view>

namespace gantry::actors {

struct WebAsset {
  std::string_view content_type;
  std::string_view body;
};

// The asset served at `path` ("/", "/app.js", "/style.css"), or nullptr.
const WebAsset* web_asset(std::string_view path);

}  // namespace gantry::actors
