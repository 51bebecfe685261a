// The agent's side of its session with the hub, as pure timing decisions:
// when to (re)connect, when to heartbeat, when the hub counts as gone. After
// the ZeroMQ guide's Paranoid Pirate: the hub is dead after `liveness` silent
// heartbeat intervals; reconnect attempts back off from 1 s doubling to 32 s.
// The socket loop asks due() what to do and reports what it heard.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

#include "agents/agent_settings.hpp"
#include "agents/executor.hpp"
#include "protocol/messages.hpp"

namespace gantry::agents {

class HubSession {
 public:
  enum class State : std::uint8_t {
    kDisconnected,  // no socket; waiting for the reconnect time
    kConnecting,    // Hello sent, waiting for Welcome
    kRegistered,
  };
  enum class Action : std::uint8_t {
    kNone,
    kConnect,        // open a fresh socket and send Hello, then call connected()
    kSendHeartbeat,  // then call heartbeat_sent()
    kDisconnect,     // the hub is silent: close the socket, then call lost()
  };

  HubSession(SessionTiming timing, TimeMs now);

  State state() const { return state_; }
  bool registered() const { return state_ == State::kRegistered; }
  std::uint64_t hub_epoch() const { return hub_epoch_; }
  std::int32_t heartbeat_ms() const { return heartbeat_ms_; }

  Action due(TimeMs now) const;
  // When due() next returns something other than kNone.
  TimeMs next_deadline() const;

  void connected(TimeMs now);
  // Returns true when the hub's epoch differs from the one of the previous
  // session (the hub restarted): its dispatch ids start over.
  bool welcomed(const protocol::Welcome& welcome, TimeMs now);
  void heard(TimeMs now);  // any frame from the hub
  // A heartbeat from another epoch means the hub restarted under us.
  bool epoch_matches(std::uint64_t epoch) const { return epoch == hub_epoch_; }
  void heartbeat_sent(TimeMs now);
  // The same, for a heartbeat sent with envelope seq `seq`: the hub's echo
  // (with the same seq) confirms the contact as of `now`.
  void heartbeat_sent(TimeMs now, std::uint64_t seq);
  // The hub echoed the heartbeat of `seq` (an echo of an unknown seq confirms nothing).
  void echoed(std::uint64_t seq);
  // The send time of the last Hello or heartbeat the hub answered: what the
  // agent knows the hub heard, whatever it heard from the hub since (an
  // asymmetric cut cannot fool it). nullopt before the first Welcome.
  std::optional<TimeMs> confirmed_contact() const { return confirmed_; }
  // The fence timeout the hub's Welcome gave (heartbeat x liveness): runs
  // are fenced once the confirmed contact is older (protocol/lease_timing.hpp).
  TimeMs fence_after_ms() const { return silence_limit_ms(); }
  // Connecting or registered, and nothing heard for this agent's own
  // heartbeat x liveness (its flags, not the hub's fence timeout): with
  // several hubs to choose from, time to try another rather than wait for
  // the fence.
  bool silent_for_own_liveness(TimeMs now) const {
    return state_ != State::kDisconnected &&
           now - last_heard_ >= static_cast<TimeMs>(timing_.heartbeat_ms) * timing_.liveness;
  }
  // The session is over (silence, epoch change, not_registered): the first
  // retry after a working session is immediate, later ones back off.
  void lost(TimeMs now);

 private:
  TimeMs silence_limit_ms() const;
  static constexpr std::size_t kMaxUnanswered = 64;  // older heartbeats are never confirmed

  SessionTiming timing_;
  State state_ = State::kDisconnected;
  std::int32_t heartbeat_ms_;
  std::int32_t liveness_;
  std::int32_t backoff_ms_ = 0;
  TimeMs reconnect_at_;
  TimeMs last_heard_ = 0;
  TimeMs next_heartbeat_ = 0;
  std::uint64_t hub_epoch_ = 0;
  TimeMs hello_sent_ = 0;
  std::optional<TimeMs> confirmed_;
  std::deque<std::pair<std::uint64_t, TimeMs>> unanswered_;  // heartbeat seq, send time
};

}  // namespace gantry::agents
