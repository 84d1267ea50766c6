// The page's routes: the one-time link, the page and its assets, the state, the event stream and the actions.
// Every request is checked here in one order: the Host header (a DNS-rebinding page cannot reach us), then the
// token or the session cookie, then the route; an action also needs a JSON body and the page's own header, which
// a cross-site form cannot send.
#pragma once

#include <string>

#include "ui/http_message.hpp"
#include "ui/page_access.hpp"
#include "ui/page_actions.hpp"
#include "ui/state_watcher.hpp"

namespace agentworks::cli::ui {

class PageRoutes {
 public:
  PageRoutes(unsigned port, PageAccess& access, StateWatcher& watcher, const PageActions& actions)
      : port_(port), access_(access), watcher_(watcher), actions_(actions) {}

  // Whether this request is an authorized GET /events (the connection then streams instead of answering once).
  bool is_event_stream(const HttpRequest& request) const;
  HttpResponse handle(const HttpRequest& request);

 private:
  bool host_ok(const HttpRequest& request) const;
  bool session_ok(const HttpRequest& request) const;
  HttpResponse action(const HttpRequest& request);

  unsigned port_;
  PageAccess& access_;
  StateWatcher& watcher_;
  const PageActions& actions_;
};

}  // namespace agentworks::cli::ui
