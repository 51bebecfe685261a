// The actors that speak with cluster agents: the registry (sessions, Hello /
// Welcome, heartbeats, liveness) and the dispatcher (Dispatch / Cancel out,
// Admit / Reject / StatusUpdate in, answer timeouts). Policy stays in the
// scheduler actor; these own the conversation.
#include <spdlog/spdlog.h>

#include <utility>
#include <vector>

#include "actors/actor_spawn.hpp"
#include "actors/agent_sessions.hpp"
#include "actors/dispatch_tracker.hpp"
#include "protocol/envelope.hpp"

namespace gantry::actors {

namespace {

template <class T>
OutboundFrame agent_frame(const std::string& peer, const T& message, std::uint64_t seq = 0) {
  return OutboundFrame{Channel::kAgents, peer, protocol::encode(message, seq), 0};
}

// ------------------------------------------------------------------ registry

class Registry {
 public:
  Registry(caf::event_based_actor* self, OutboundSink& sink, Clock clock, RegistryOptions options,
           caf::actor scheduler, caf::actor dispatcher)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        options_(options),
        sessions_(options.heartbeat_interval.count() * options.liveness),
        scheduler_(std::move(scheduler)),
        dispatcher_(std::move(dispatcher)) {}

  caf::behavior behavior() {
    self_->delayed_send(self_, options_.heartbeat_interval, tick_atom_v);
    return {
        [this](const ReplyTo& from, const protocol::Hello& hello) { on_hello(from, hello); },
        [this](const ReplyTo& from, const protocol::Heartbeat&) { on_heartbeat(from); },
        [this](const ReplyTo& from, protocol::UsageReport& report) { on_usage(from, report); },
        [this](const ReplyTo& from, const protocol::Admit& admit) { forward(from, admit); },
        [this](const ReplyTo& from, const protocol::Reject& reject) { forward(from, reject); },
        [this](const ReplyTo& from, const protocol::StatusUpdate& update) {
          forward(from, update);
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
    const std::string replaced = sessions_.open(from.peer, hello.cluster, clock_());
    if (!replaced.empty()) {
      spdlog::info("cluster {}: agent moved from peer '{}' to '{}'", hello.cluster, replaced,
                   from.peer);
    }
    spdlog::info("cluster {} registered (agent {}, peer '{}', {} running dispatch(es))",
                 hello.cluster, hello.agent_version, from.peer, hello.running.size());
    // The dispatcher learns the peer before the scheduler can order anything
    // for this cluster: both messages leave from here in this order.
    self_->send(dispatcher_, peer_atom_v, hello.cluster, from.peer);
    self_->send(scheduler_, hello);
    sink_.send(agent_frame(
        from.peer,
        protocol::Welcome{options_.hub_epoch,
                          static_cast<std::int32_t>(options_.heartbeat_interval.count()),
                          options_.liveness},
        from.seq));
  }

  void on_heartbeat(const ReplyTo& from) {
    if (const AgentSessions::Session* session = touch(from)) {
      sink_.send(agent_frame(from.peer, protocol::Heartbeat{session->cluster, options_.hub_epoch},
                             from.seq));
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
    self_->send(scheduler_, std::move(report));
  }

  template <class T>
  void forward(const ReplyTo& from, const T& message) {
    if (const AgentSessions::Session* session = touch(from)) {
      self_->send(dispatcher_, session->cluster, message);
    }
  }

  // Any frame keeps a session alive; a peer without one is told to say Hello.
  const AgentSessions::Session* touch(const ReplyTo& from) {
    const AgentSessions::Session* session = sessions_.touch(from.peer, clock_());
    if (session == nullptr) {
      sink_.send(agent_frame(
          from.peer,
          protocol::ErrorReply{"not_registered", "peer '" + from.peer + "' has not sent Hello"},
          from.seq));
    }
    return session;
  }

  void on_tick() {
    self_->delayed_send(self_, options_.heartbeat_interval, tick_atom_v);
    const hub::TimeMs now = clock_();
    for (const AgentSessions::Session& lost : sessions_.expire(now)) {
      spdlog::warn("cluster {}: nothing heard for {} ms (heartbeat {} ms x liveness {})",
                   lost.cluster, now - lost.last_seen_ms, options_.heartbeat_interval.count(),
                   options_.liveness);
      self_->send(dispatcher_, peer_atom_v, lost.cluster, std::string());
      self_->send(scheduler_, lost_atom_v, lost.cluster);
    }
    self_->send(scheduler_, seen_atom_v, sessions_.last_seen());
  }

  caf::event_based_actor* self_;
  OutboundSink& sink_;
  Clock clock_;
  RegistryOptions options_;
  AgentSessions sessions_;
  caf::actor scheduler_;
  caf::actor dispatcher_;
};

struct RegistryState {
  std::unique_ptr<Registry> registry;
  static inline const char* name = "gantry.registry";
};

caf::behavior registry_actor(caf::stateful_actor<RegistryState>* self, OutboundSink* sink,
                             Clock clock, RegistryOptions options, caf::actor scheduler,
                             caf::actor dispatcher) {
  self->state.registry = std::make_unique<Registry>(self, *sink, std::move(clock), options,
                                                    std::move(scheduler), std::move(dispatcher));
  return self->state.registry->behavior();
}

// ------------------------------------------------------------------ dispatcher

class Dispatcher {
 public:
  Dispatcher(caf::event_based_actor* self, OutboundSink& sink, Clock clock,
             std::chrono::milliseconds tick_interval, std::chrono::milliseconds answer_timeout)
      : self_(self),
        sink_(sink),
        clock_(std::move(clock)),
        tick_interval_(tick_interval),
        answer_timeout_(answer_timeout) {}

  caf::behavior behavior() {
    self_->delayed_send(self_, tick_interval_, tick_atom_v);
    return {
        [this](connect_atom, caf::actor scheduler) { scheduler_ = std::move(scheduler); },
        [this](peer_atom, const std::string& cluster, const std::string& peer) {
          tracker_.set_peer(cluster, peer);
        },
        [this](std::vector<OutgoingDispatch>& batch) { send_dispatches(batch); },
        [this](const std::vector<CancelOrder>& orders) { send_cancels(orders); },
        [this](const std::string& cluster, const protocol::Admit& admit) {
          tracker_.answered(admit.dispatch_id);
          self_->send(scheduler_, cluster, admit);
        },
        [this](const std::string& cluster, const protocol::Reject& reject) {
          tracker_.answered(reject.dispatch_id);
          self_->send(scheduler_, cluster, reject);
        },
        [this](const std::string& cluster, const protocol::StatusUpdate& update) {
          tracker_.answered(update.dispatch_id);  // Running also answers a lost Admit
          self_->send(scheduler_, cluster, update);
        },
        [this](undeliv_atom, std::uint64_t dispatch_id) { on_undeliverable(dispatch_id); },
        [this](tick_atom) { on_tick(); },
    };
  }

 private:
  void reject(const std::string& cluster, hub::DispatchId id, const std::string& job,
              std::string reason) {
    spdlog::warn("dispatch {} ({}) to cluster {}: {}", id, job, cluster, reason);
    self_->send(scheduler_, cluster, protocol::Reject{id, job, std::move(reason)});
  }

  void send_dispatches(std::vector<OutgoingDispatch>& batch) {
    const hub::TimeMs deadline = clock_() + answer_timeout_.count();
    std::vector<OutboundFrame> frames;
    frames.reserve(batch.size());
    for (OutgoingDispatch& dispatch : batch) {
      const std::string* peer = tracker_.peer_of(dispatch.cluster);
      if (peer == nullptr) {
        reject(dispatch.cluster, dispatch.dispatch_id, dispatch.job, "agent unreachable");
        continue;
      }
      tracker_.sent({dispatch.dispatch_id, dispatch.cluster, dispatch.job, *peer, deadline});
      frames.push_back(
          OutboundFrame{Channel::kAgents, *peer, std::move(dispatch.frame), dispatch.dispatch_id});
    }
    sink_.send_batch(std::move(frames));
  }

  void send_cancels(const std::vector<CancelOrder>& orders) {
    std::vector<OutboundFrame> frames;
    for (const CancelOrder& order : orders) {
      tracker_.answered(order.dispatch_id);
      if (const std::string* peer = tracker_.peer_of(order.cluster)) {
        frames.push_back(agent_frame(*peer, protocol::Cancel{order.dispatch_id, order.job}));
      }
    }
    sink_.send_batch(std::move(frames));
  }

  void on_undeliverable(hub::DispatchId id) {
    if (std::optional<DispatchTracker::Awaiting> awaiting = tracker_.take(id)) {
      reject(awaiting->cluster, id, awaiting->job, "agent unreachable");
    }
  }

  // An agent that neither admits nor rejects in time is treated as having
  // rejected; it is told to cancel in case the Dispatch did arrive.
  void on_tick() {
    self_->delayed_send(self_, tick_interval_, tick_atom_v);
    std::vector<OutboundFrame> cancels;
    for (DispatchTracker::Awaiting& late : tracker_.overdue(clock_())) {
      cancels.push_back(agent_frame(late.peer, protocol::Cancel{late.id, late.job}));
      reject(late.cluster, late.id, late.job, "agent did not answer");
    }
    sink_.send_batch(std::move(cancels));
  }

  caf::event_based_actor* self_;
  OutboundSink& sink_;
  Clock clock_;
  std::chrono::milliseconds tick_interval_;
  std::chrono::milliseconds answer_timeout_;
  caf::actor scheduler_;
  DispatchTracker tracker_;
};

struct DispatcherState {
  std::unique_ptr<Dispatcher> dispatcher;
  static inline const char* name = "gantry.dispatcher";
};

caf::behavior dispatcher_actor(caf::stateful_actor<DispatcherState>* self, OutboundSink* sink,
                               Clock clock, std::chrono::milliseconds tick_interval,
                               std::chrono::milliseconds answer_timeout) {
  self->state.dispatcher =
      std::make_unique<Dispatcher>(self, *sink, std::move(clock), tick_interval, answer_timeout);
  return self->state.dispatcher->behavior();
}

}  // namespace

caf::actor spawn_registry(caf::actor_system& system, OutboundSink& sink, Clock clock,
                          RegistryOptions options, caf::actor scheduler, caf::actor dispatcher) {
  return system.spawn(registry_actor, &sink, std::move(clock), options, std::move(scheduler),
                      std::move(dispatcher));
}

caf::actor spawn_dispatcher(caf::actor_system& system, OutboundSink& sink, Clock clock,
                            std::chrono::milliseconds tick_interval,
                            std::chrono::milliseconds answer_timeout) {
  return system.spawn(dispatcher_actor, &sink, std::move(clock), tick_interval, answer_timeout);
}

}  // namespace gantry::actors
