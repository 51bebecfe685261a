// The actors that speak with cluster agents: the registry (sessions, Hello /
// Welcome, heartbeats, leases) and the dispatcher (Prepare / Commit / Abort /
// Cancel out, Admit / Reject / StatusUpdate in, resends and answer
// timeouts). Policy stays in the scheduler actor; these own the conversation.
#include <spdlog/spdlog.h>

#include <utility>
#include <vector>

#include "actors/actor_spawn.hpp"
#include "actors/admin_answer.hpp"
#include "actors/agent_sessions.hpp"
#include "actors/dispatch_tracker.hpp"
#include "actors/log_relay.hpp"
#include "hub/duration.hpp"
#include "protocol/envelope.hpp"
#include "protocol/lease_timing.hpp"
#include "support/log_fields.hpp"

namespace gantry::actors {

namespace {

template <class T>
OutboundFrame agent_frame(const std::string& peer, const T& message, std::uint64_t seq = 0) {
  return OutboundFrame{Channel::kAgents, peer, protocol::encode(message, seq), 0};
}

// ------------------------------------------------------------------ registry

class Registry {
 public:
  Registry(caf::event_based_actor* self, OutboundSink& sink, Clock clock,
           const AgentSessionSettings& settings, std::uint64_t hub_epoch, caf::actor scheduler,
           caf::actor dispatcher)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        settings_(settings),
        hub_epoch_(hub_epoch),
        sessions_(settings.agent_lease.count(), settings.lost_grace.count()),
        scheduler_(std::move(scheduler)),
        dispatcher_(std::move(dispatcher)) {}

  caf::behavior behavior() {
    self_->delayed_send(self_, settings_.heartbeat_interval, tick_atom_v);
    return {
        [this](const ReplyTo& from, const protocol::Hello& hello) { on_hello(from, hello); },
        [this](const ReplyTo& from, const protocol::Heartbeat&) { on_heartbeat(from); },
        [this](const ReplyTo& from, protocol::UsageReport& report) { on_usage(from, report); },
        [this](const ReplyTo& from, const protocol::Admit& admit) { forward(from, admit); },
        [this](const ReplyTo& from, const protocol::Reject& reject) { forward(from, reject); },
        [this](const ReplyTo& from, const protocol::StatusUpdate& update) {
          forward(from, update);
        },
        [this](const ReplyTo& from, const protocol::Resized& resized) {
          if (const AgentSessions::Session* session = touch(from))
            self_->send<caf::message_priority::high>(scheduler_, session->cluster, resized);
        },
        [this](const ReplyTo& from, const protocol::ErrorReply& error) {
          if (const AgentSessions::Session* session = touch(from)) {
            spdlog::warn("cluster {} could not handle a hub frame: {}: {}", session->cluster,
                         error.code, error.message);
          }
        },
        [this](tick_atom) { on_tick(); },
    };
  }

 private:
  void on_hello(const ReplyTo& from, const protocol::Hello& hello) {
    if (hello.cluster.empty()) {
      sink_.send(agent_frame(
          from.peer, protocol::ErrorReply{"bad_payload", "Hello.cluster: must not be empty"},
          from.seq));
      return;
    }
    const auto source = hello.labels.find(protocol::kSourceLabel);
    const bool karmada = source != hello.labels.end() && source->second == protocol::kKarmadaSource;
    if (karmada) {
      if (const std::string agent = sessions_.agent_of(hello.cluster);
          !agent.empty() && agent != from.peer) {
        sink_.send(agent_frame(
            from.peer,
            protocol::ErrorReply{"cluster_has_agent", "cluster " + hello.cluster +
                                                          " is served by its Gantry agent (peer '" +
                                                          agent + "'): its node report is used"},
            from.seq));
        return;
      }
    }
    const std::string replaced = sessions_.open(from.peer, hello.cluster, clock_(), karmada);
    const support::LogScope log_scope({.cluster = hello.cluster});
    if (!replaced.empty()) {
      spdlog::info("cluster {}: agent moved from peer '{}' to '{}'", hello.cluster, replaced,
                   from.peer);
    }
    spdlog::info("cluster {} registered (agent {}, peer '{}', {} running dispatch(es))",
                 hello.cluster, hello.agent_version, from.peer, hello.running.size());
    // The dispatcher learns the peer before the scheduler can order anything
    // for this cluster: both messages leave from here in this order. At the
    // priority of the agent's reports and answers (forward()), which must not
    // overtake the Hello: a status of a run the Hello lists would look stale
    // and be cancelled.
    self_->send<caf::message_priority::high>(dispatcher_, peer_atom_v, hello.cluster, from.peer);
    if (hello.ended.empty()) {  // nothing to store first: welcomed at once
      self_->request<caf::message_priority::high>(scheduler_, caf::infinite, hello)
          .then([](const std::string&) {}, [](const caf::error&) {});
      welcome(from);
      return;
    }
    // The agent forgets the ends its Hello repeats once welcomed: the Welcome
    // waits until the hub has stored them, so a hub killed meanwhile does not
    // lose them (the agent repeats them to the next one).
    self_->request<caf::message_priority::high>(scheduler_, caf::infinite, hello)
        .then(
            [this, from, cluster = hello.cluster](const std::string& error) {
              if (error.empty()) {
                welcome(from);
                return;
              }
              spdlog::error(
                  "cluster {}: its Hello's ends cannot be stored ({}); not welcomed, "
                  "so it repeats them",
                  cluster, error);
            },
            [cluster = hello.cluster](const caf::error&) {
              spdlog::error("cluster {}: its Hello was not answered", cluster);
            });
  }

  void welcome(const ReplyTo& from) {
    sink_.send(agent_frame(
        from.peer,
        protocol::Welcome{
            hub_epoch_, static_cast<std::int32_t>(settings_.heartbeat_interval.count()),
            protocol::fence_in_heartbeats(settings_.lost_grace, settings_.heartbeat_interval)},
        from.seq));
  }

  void on_heartbeat(const ReplyTo& from) {
    if (const AgentSessions::Session* session = touch(from)) {
      sink_.send(
          agent_frame(from.peer, protocol::Heartbeat{session->cluster, hub_epoch_}, from.seq));
    }
  }

  void on_usage(const ReplyTo& from, protocol::UsageReport& report) {
    const AgentSessions::Session* session = touch(from);
    if (session == nullptr) return;
    if (!report.cluster.empty() && report.cluster != session->cluster) {
      sink_.send(agent_frame(
          from.peer,
          protocol::ErrorReply{"bad_payload", "UsageReport.cluster: \"" + report.cluster +
                                                  "\" is not this session's cluster \"" +
                                                  session->cluster + "\""},
          from.seq));
      return;
    }
    report.cluster = session->cluster;
    // At the priority of the Hello and the answers: an agent's frames reach
    // the scheduler in the order the agent sent them.
    self_->send<caf::message_priority::high>(scheduler_, std::move(report));
  }

  // Agents' answers about dispatches go to the scheduler and, so that it
  // stops resending what they answer, to the dispatcher, side by side: one
  // hop less on the way to a gang's commit. They go ahead of queued traffic
  // (a burst of submissions) and keep their order among themselves (one
  // priority).
  template <class T>
  void forward(const ReplyTo& from, const T& message) {
    if (const AgentSessions::Session* session = touch(from)) {
      self_->send<caf::message_priority::high>(dispatcher_, session->cluster, message);
      self_->send<caf::message_priority::high>(scheduler_, session->cluster, message);
    }
  }

  // Any frame keeps a session alive, and wakes a silent one; a peer without
  // a session (never said Hello, or lost) is told to say Hello.
  const AgentSessions::Session* touch(const ReplyTo& from) {
    const AgentSessions::Touched touched = sessions_.touch(from.peer, clock_());
    if (touched.session == nullptr) {
      sink_.send(agent_frame(
          from.peer,
          protocol::ErrorReply{"not_registered", "peer '" + from.peer + "' has not sent Hello"},
          from.seq));
      return nullptr;
    }
    if (touched.woke) {
      spdlog::info("cluster {}: its agent answers again", touched.session->cluster);
      self_->send(scheduler_, heard_atom_v, touched.session->cluster);
    }
    return touched.session;
  }

  void on_tick() {
    self_->delayed_send(self_, settings_.heartbeat_interval, tick_atom_v);
    const hub::TimeMs now = clock_();
    const AgentSessions::Expired expired = sessions_.expire(now);
    for (const AgentSessions::Session& silent : expired.silent) {
      const support::LogScope log_scope({.cluster = silent.cluster});
      spdlog::warn("cluster {}: nothing heard for {} ms (lease {}): not ready", silent.cluster,
                   now - silent.last_seen_ms, hub::format_duration(settings_.agent_lease.count()));
      self_->send(scheduler_, silent_atom_v, silent.cluster);
    }
    for (const AgentSessions::Session& lost : expired.lost) {
      const support::LogScope log_scope({.cluster = lost.cluster});
      spdlog::warn("cluster {}: nothing heard for {} ms (lost grace {}): lost", lost.cluster,
                   now - lost.last_seen_ms, hub::format_duration(settings_.lost_grace.count()));
      self_->send(dispatcher_, peer_atom_v, lost.cluster, std::string());
      self_->send(scheduler_, lost_atom_v, lost.cluster);
    }
    self_->send(scheduler_, seen_atom_v, sessions_.last_seen());
  }

  caf::event_based_actor* self_;
  OutboundSink& sink_;
  Clock clock_;
  AgentSessionSettings settings_;
  std::uint64_t hub_epoch_;
  AgentSessions sessions_;
  caf::actor scheduler_;
  caf::actor dispatcher_;
};

struct RegistryState {
  std::unique_ptr<Registry> registry;
  static inline const char* name = "gantry.registry";
};

caf::behavior registry_actor(caf::stateful_actor<RegistryState>* self, OutboundSink* sink,
                             Clock clock, AgentSessionSettings settings, std::uint64_t hub_epoch,
                             caf::actor scheduler, caf::actor dispatcher) {
  self->state.registry =
      std::make_unique<Registry>(self, *sink, std::move(clock), settings, hub_epoch,
                                 std::move(scheduler), std::move(dispatcher));
  return self->state.registry->behavior();
}

// ------------------------------------------------------------------ dispatcher

class Dispatcher {
 public:
  Dispatcher(caf::event_based_actor* self, OutboundSink& sink, Clock clock,
             std::chrono::milliseconds resend_interval, std::chrono::milliseconds answer_timeout)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        resend_interval_(resend_interval),
        answer_timeout_(answer_timeout),
        tracker_(resend_interval.count()) {}

  caf::behavior behavior() {
    self_->delayed_send(self_, resend_interval_, tick_atom_v);
    return {
        [this](connect_atom, caf::actor scheduler) { scheduler_ = std::move(scheduler); },
        [this](peer_atom, const std::string& cluster, const std::string& peer) {
          tracker_.set_peer(cluster, peer);
        },
        [this](std::vector<PartFrame>& frames) { send_parts(frames); },
        [this](const std::vector<StopOrder>& orders) { send_stops(orders); },
        // Sent once: an unanswered growth is released by the core.
        [this](const std::string& cluster, const protocol::Resize& resize) {
          if (const std::string* peer = tracker_.peer_of(cluster))
            sink_.send(agent_frame(*peer, resize));
        },
        [this](const std::string& cluster, const protocol::Admit& admit) {
          tracker_.answered(admit.dispatch_id, cluster, DispatchTracker::Answer::kAdmit);
        },
        [this](const std::string& cluster, const protocol::Reject& reject) {
          tracker_.answered(reject.dispatch_id, cluster, DispatchTracker::Answer::kReject);
        },
        [this](const std::string& cluster, const protocol::StatusUpdate& update) {
          tracker_.answered(update.dispatch_id, cluster, DispatchTracker::Answer::kStatus);
        },
        // gantryctl logs (actors/log_relay.hpp).
        [this](const std::string& cluster, const ReplyTo& reader, protocol::LogsRequest& request) {
          open_log_stream(cluster, reader, request);
        },
        [this](const ReplyTo& from, protocol::LogsChunk& chunk) { pass_on(from, chunk); },
        [this](gone_atom, const std::string& peer) {
          for (std::uint64_t id : logs_.read_by(peer)) stop_log_stream(id);
        },
        [this](tick_atom) { on_tick(); },
    };
  }

 private:
  // Told to the scheduler as if the agent had said it.
  void reject(const std::string& cluster, hub::DispatchId id, const std::string& job,
              std::int32_t part, std::string reason) {
    const support::LogScope log_scope({.job = job, .cluster = cluster, .dispatch = id});
    spdlog::warn("dispatch {} ({}) part {} on cluster {}: {}", id, job, part, cluster, reason);
    self_->send<caf::message_priority::high>(scheduler_, cluster,
                                             protocol::Reject{id, job, std::move(reason), part});
  }

  void send_parts(std::vector<PartFrame>& parts) {
    const hub::TimeMs now = clock_();
    std::vector<OutboundFrame> frames;
    frames.reserve(parts.size());
    for (PartFrame& part : parts) {
      const std::string* peer = tracker_.peer_of(part.cluster);
      if (peer == nullptr) {
        reject(part.cluster, part.dispatch_id, part.job, part.part, "agent unreachable");
        continue;
      }
      frames.push_back(OutboundFrame{Channel::kAgents, *peer, part.frame, part.dispatch_id});
      tracker_.sent(
          {part.dispatch_id, std::move(part.cluster), std::move(part.job), part.part,
           part.commit ? DispatchTracker::Phase::kCommit : DispatchTracker::Phase::kPrepare,
           std::move(part.frame), now, now + answer_timeout_.count()});
    }
    sink_.send_batch(std::move(frames));
  }

  void open_log_stream(const std::string& cluster, const ReplyTo& reader,
                       protocol::LogsRequest& request) {
    const std::string* agent = tracker_.peer_of(cluster);
    if (agent == nullptr) {
      end_log_stream(reader, "cluster " + cluster + " has no agent connected to the hub now");
      return;
    }
    request.stream = logs_.open(reader, *agent, cluster, clock_());
    if (request.stream == 0) {
      end_log_stream(reader, "the hub already passes on " + std::to_string(LogRelay::kMaxStreams) +
                                 " log streams (its limit); try again when one ends");
      return;
    }
    sink_.send(agent_frame(*agent, request));
  }

  void pass_on(const ReplyTo& from, protocol::LogsChunk& chunk) {
    const LogRelay::Stream* stream = logs_.heard(chunk.stream, from.peer, clock_());
    if (stream == nullptr) return;  // closed meanwhile, or not this agent's
    const ReplyTo reader = stream->reader;
    if (chunk.end) logs_.close(chunk.stream);
    chunk.stream = 0;                         // the reader knows its stream by its request's seq
    sink_.send(admin_answer(reader, chunk));  // the first one counts as the request's answer
  }

  void end_log_stream(const ReplyTo& reader, std::string error) {
    protocol::LogsChunk last;
    last.end = true;
    last.error = std::move(error);
    sink_.send(admin_answer(reader, last));
  }

  // The reader went away, or the agent went quiet: the agent stops reading.
  void stop_log_stream(std::uint64_t id) {
    if (const LogRelay::Stream* stream = logs_.find(id))
      sink_.send(agent_frame(stream->agent, protocol::LogsStop{id}));
    logs_.close(id);
  }

  // An agent sends a -f stream's keepalive every kWatchKeepaliveMs: three
  // missed, it is gone (or restarted) and the reader is told.
  void expire_log_streams(hub::TimeMs now) {
    for (std::uint64_t id : logs_.quiet_since(now - 3 * protocol::kWatchKeepaliveMs)) {
      if (const LogRelay::Stream* stream = logs_.find(id))
        end_log_stream(stream->reader,
                       "the agent of cluster " + stream->cluster + " stopped sending the log");
      stop_log_stream(id);
    }
  }

  void send_stops(const std::vector<StopOrder>& orders) {
    std::vector<OutboundFrame> frames;
    frames.reserve(orders.size());
    for (const StopOrder& order : orders) {
      tracker_.forget(order.dispatch_id, order.cluster);
      const std::string* peer = tracker_.peer_of(order.cluster);
      if (peer == nullptr) continue;  // a returning agent lists it; the hub stops it then
      if (order.abort) {
        frames.push_back(agent_frame(
            *peer, protocol::Abort{order.dispatch_id, order.job, order.part, order.reason}));
      } else {
        frames.push_back(agent_frame(*peer, protocol::Cancel{order.dispatch_id, order.job}));
      }
    }
    sink_.send_batch(std::move(frames));
  }

  // A Prepare or Commit unanswered past the timeout counts as a Reject; the
  // agent is told to abort the part in case the frame did arrive. The others
  // are sent again (a frame lost on the wire; or not sent: the peer was gone).
  void on_tick() {
    self_->delayed_send(self_, resend_interval_, tick_atom_v);
    const hub::TimeMs now = clock_();
    expire_log_streams(now);
    std::vector<OutboundFrame> frames;
    for (DispatchTracker::Awaiting& late : tracker_.overdue(now)) {
      const std::string reason = late.phase == DispatchTracker::Phase::kPrepare
                                     ? "agent did not answer the prepare within " +
                                           hub::format_duration(answer_timeout_.count())
                                     : "agent did not confirm the commit within " +
                                           hub::format_duration(answer_timeout_.count());
      if (const std::string* peer = tracker_.peer_of(late.cluster))
        frames.push_back(agent_frame(*peer, protocol::Abort{late.id, late.job, late.part, reason}));
      reject(late.cluster, late.id, late.job, late.part, reason);
    }
    for (const DispatchTracker::Awaiting* again : tracker_.due(now)) {
      if (const std::string* peer = tracker_.peer_of(again->cluster))
        frames.push_back(OutboundFrame{Channel::kAgents, *peer, again->frame, again->id});
    }
    sink_.send_batch(std::move(frames));
  }

  caf::event_based_actor* self_;
  OutboundSink& sink_;
  Clock clock_;
  std::chrono::milliseconds resend_interval_;
  std::chrono::milliseconds answer_timeout_;
  caf::actor scheduler_;
  DispatchTracker tracker_;
  LogRelay logs_;
};

struct DispatcherState {
  std::unique_ptr<Dispatcher> dispatcher;
  static inline const char* name = "gantry.dispatcher";
};

caf::behavior dispatcher_actor(caf::stateful_actor<DispatcherState>* self, OutboundSink* sink,
                               Clock clock, std::chrono::milliseconds resend_interval,
                               std::chrono::milliseconds answer_timeout) {
  self->state.dispatcher =
      std::make_unique<Dispatcher>(self, *sink, std::move(clock), resend_interval, answer_timeout);
  return self->state.dispatcher->behavior();
}

}  // namespace

caf::actor spawn_registry(caf::actor_system& system, OutboundSink& sink, Clock clock,
                          const AgentSessionSettings& settings, std::uint64_t hub_epoch,
                          caf::actor scheduler, caf::actor dispatcher) {
  return system.spawn(registry_actor, &sink, std::move(clock), settings, hub_epoch,
                      std::move(scheduler), std::move(dispatcher));
}

caf::actor spawn_dispatcher(caf::actor_system& system, OutboundSink& sink, Clock clock,
                            std::chrono::milliseconds resend_interval,
                            std::chrono::milliseconds answer_timeout) {
  return system.spawn(dispatcher_actor, &sink, std::move(clock), resend_interval, answer_timeout);
}

}  // namespace gantry::actors
