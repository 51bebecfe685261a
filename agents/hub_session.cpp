#include "agents/hub_session.hpp"

#include <algorithm>

namespace gantry::agents {

HubSession::HubSession(SessionTiming timing, TimeMs now)
    : timing_(timing),
      heartbeat_ms_(timing.heartbeat_ms),
      liveness_(timing.liveness),
      reconnect_at_(now) {}

TimeMs HubSession::silence_limit_ms() const {
  return static_cast<TimeMs>(heartbeat_ms_) * liveness_;
}

HubSession::Action HubSession::due(TimeMs now) const {
  switch (state_) {
    case State::kDisconnected:
      return now >= reconnect_at_ ? Action::kConnect : Action::kNone;
    case State::kConnecting:
      return now - last_heard_ >= silence_limit_ms() ? Action::kDisconnect : Action::kNone;
    case State::kRegistered:
      if (now - last_heard_ >= silence_limit_ms()) return Action::kDisconnect;
      return now >= next_heartbeat_ ? Action::kSendHeartbeat : Action::kNone;
  }
  return Action::kNone;
}

TimeMs HubSession::next_deadline() const {
  switch (state_) {
    case State::kDisconnected:
      return reconnect_at_;
    case State::kConnecting:
      return last_heard_ + silence_limit_ms();
    case State::kRegistered:
      return std::min(last_heard_ + silence_limit_ms(), next_heartbeat_);
  }
  return reconnect_at_;
}

void HubSession::connected(TimeMs now) {
  state_ = State::kConnecting;
  last_heard_ = now;  // the Welcome has a full silence limit to arrive
  hello_sent_ = now;
  unanswered_.clear();  // a new socket: no echo of the old one's heartbeats comes
}

bool HubSession::welcomed(const protocol::Welcome& welcome, TimeMs now) {
  const bool new_epoch = hub_epoch_ != 0 && welcome.hub_epoch != hub_epoch_;
  hub_epoch_ = welcome.hub_epoch;
  if (welcome.heartbeat_interval_ms > 0) heartbeat_ms_ = welcome.heartbeat_interval_ms;
  if (welcome.heartbeat_liveness > 0) liveness_ = welcome.heartbeat_liveness;
  state_ = State::kRegistered;
  backoff_ms_ = 0;
  last_heard_ = now;
  next_heartbeat_ = now + heartbeat_ms_;
  confirmed_ = hello_sent_;  // the Welcome answers the Hello
  return new_epoch;
}

void HubSession::heard(TimeMs now) {
  last_heard_ = std::max(last_heard_, now);
}

void HubSession::heartbeat_sent(TimeMs now) {
  next_heartbeat_ = now + heartbeat_ms_;
}

void HubSession::heartbeat_sent(TimeMs now, std::uint64_t seq) {
  heartbeat_sent(now);
  unanswered_.emplace_back(seq, now);
  if (unanswered_.size() > kMaxUnanswered) unanswered_.pop_front();
}

void HubSession::echoed(std::uint64_t seq) {
  while (!unanswered_.empty() && unanswered_.front().first <= seq) {
    // Sent after this session's Hello (connected() forgot older ones), so later.
    if (unanswered_.front().first == seq) confirmed_ = unanswered_.front().second;
    unanswered_.pop_front();
  }
}

void HubSession::lost(TimeMs now) {
  state_ = State::kDisconnected;
  reconnect_at_ = now + backoff_ms_;
  const std::int32_t first = std::min(timing_.initial_backoff_ms, timing_.max_backoff_ms);
  backoff_ms_ = backoff_ms_ == 0 ? first : std::min(backoff_ms_ * 2, timing_.max_backoff_ms);
}

}  // namespace gantry::agents
