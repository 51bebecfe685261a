// The web view's documents (docs/web.md), built from the answers gantryctl
// gets (actors/admin_replies.hpp), in gantryctl -o json's shapes
// (console/object_json.hpp). Compact: the event stream sends each as one line.
#pragma once

#include <string>

#include "protocol/messages.hpp"

namespace gantry::actors {

// /api/overview: {"clusters": [...], "queues": [...], "jobs": [...]}, each
// item as gantryctl get -o json shows it, except the clusters' lastSeen:
// it moves with every heartbeat, and the stream sends only changes.
std::string overview_json(const protocol::ListReply& clusters, const protocol::ListReply& queues,
                          const protocol::ListReply& jobs);

// /api/jobs/NAME: {"job": {...}, "events": [{"time": "...", "text": "..."}]},
// oldest event first.
std::string job_page_json(const protocol::DescribeReply& reply);

}  // namespace gantry::actors
