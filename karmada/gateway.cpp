#include "karmada/gateway.hpp"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <variant>
#include <zmq.hpp>

#include "agents/agent_loop.hpp"
#include "config/bounded_json.hpp"
#include "karmada/gateway_core.hpp"
#include "karmada/scheduled_bindings.hpp"
#include "karmada/split_override.hpp"
#include "kube/reflector.hpp"
#include "protocol/envelope.hpp"
#include "support/random_hex.hpp"
#include "support/text_excerpt.hpp"

namespace gantry::karmada {

namespace {

using agents::HubSession;
using agents::TimeMs;

inline constexpr const char* kGatewayVersion = "gantry-karmada/0.1.0";
// How often a binding write is tried before it is given up (each conflict
// re-reads the binding first).
constexpr int kWriteAttempts = 8;
// How long a submission waits for the hub's answer before the next one goes.
constexpr std::chrono::milliseconds kSubmissionWait{5000};

struct Listed {
  bool clusters = false;
  std::vector<nlohmann::json> items;
};
struct Event {
  bool cluster = false;
  std::string type;
  nlohmann::json object;
};
struct Document {
  BindingKey key;
  std::string yaml;
};
// The writer could not release a dispatch (GatewayCore::on_release_failed).
struct ReleaseFailed {
  DispatchId dispatch_id = 0;
  std::string reason;
};
using InboxItem = std::variant<Listed, Event, Document, ReleaseFailed>;

std::string binding_path(const std::string& bindings_path, const BindingKey& key) {
  // bindings_path is the all-namespaces list: /apis/GROUP/VERSION/resourcebindings.
  const std::size_t plural = bindings_path.rfind('/');
  return bindings_path.substr(0, plural) + "/namespaces/" + key.namespace_ +
         bindings_path.substr(plural) + "/" + key.name;
}

// An API server's answer that trying again would not change (403, 422, ...).
struct RefusedRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool readable(const zmq_pollitem_t& item) {
  return (item.revents & ZMQ_POLLIN) != 0;
}

// The last part of a multipart message: the frame, whatever delimiter precedes it.
bool receive_frame(zmq::socket_t& socket, std::string& frame) {
  zmq::message_t part;
  if (!socket.recv(part, zmq::recv_flags::dontwait)) return false;
  while (part.more())
    if (!socket.recv(part, zmq::recv_flags::none)) return false;
  frame = part.to_string();
  return true;
}

}  // namespace

// One member cluster's session with the hub, as an agent's.
struct ClusterSession {
  ClusterSession(std::string name, agents::SessionTiming timing, TimeMs now)
      : cluster(std::move(name)), session(timing, now) {}
  std::string cluster;
  HubSession session;
  std::unique_ptr<zmq::socket_t> socket;
  std::uint64_t seq = 1;
  std::vector<HubMessage> pending;  // decided, waiting for a registered session
  bool usage_pending = false;
  bool agent_noted = false;  // the hub said the cluster's own agent serves it
};

struct Gateway::Running {
  explicit Running(GatewayOptions given)
      : options(std::move(given)), client(options.access), wake_fd(eventfd(0, EFD_NONBLOCK)) {
    if (wake_fd < 0) throw std::runtime_error("karmada gateway: eventfd failed");
  }
  ~Running() { ::close(wake_fd); }

  // ---------------------------------------------------------------- threads
  void start() {
    admin = std::make_unique<zmq::socket_t>(context, zmq::socket_type::dealer);
    // Random suffixes: the hub's ROUTERs hand no routing id over, and nothing
    // reads these names (see open()).
    admin->set(zmq::sockopt::routing_id, "karmada-gateway/" + support::random_hex(8));
    admin->set(zmq::sockopt::linger, 0);
    if (options.hub_keys) support::make_curve_client(*admin, *options.hub_keys);
    admin->connect(options.admin_endpoint);
    writer = std::thread([this] { write_loop(); });
    loop = std::thread([this] { run_loop(); });
    clusters_reflector = std::make_unique<kube::Reflector>(client, options.clusters_path,
                                                           handlers(/*clusters=*/true));
    bindings_reflector = std::make_unique<kube::Reflector>(client, options.bindings_path,
                                                           handlers(/*clusters=*/false));
    clusters_reflector->start();
    bindings_reflector->start();
    spdlog::info("karmada: watching {} and {} on {}", options.clusters_path, options.bindings_path,
                 client.server());
  }

  void stop() {
    if (stopping.exchange(true)) return;
    if (clusters_reflector) clusters_reflector->stop();
    if (bindings_reflector) bindings_reflector->stop();
    {
      std::lock_guard lock(write_mutex);
      write_wake.notify_all();
    }
    wake();
    if (writer.joinable()) writer.join();
    if (loop.joinable()) loop.join();
    sessions.clear();
    admin.reset();
  }

  kube::Reflector::Handlers handlers(bool clusters) {
    kube::Reflector::Handlers handlers;
    handlers.on_list = [this, clusters](const std::vector<nlohmann::json>& items) {
      post(Listed{clusters, items});
    };
    handlers.on_event = [this, clusters](const std::string& type, const nlohmann::json& object) {
      post(Event{clusters, type, object});
    };
    handlers.on_error = [clusters](const std::string& error) {
      spdlog::warn("karmada: {} watch: {}", clusters ? "cluster" : "binding", error);
    };
    return handlers;
  }

  void post(InboxItem item) {
    {
      std::lock_guard lock(inbox_mutex);
      inbox.push_back(std::move(item));
    }
    wake();
  }

  void wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = ::write(wake_fd, &one, sizeof one);
  }

  // ---------------------------------------------------------------- loop
  void run_loop() {
    std::vector<zmq_pollitem_t> items;
    std::vector<ClusterSession*> polled;
    while (!stopping) {
      const TimeMs now = agents::steady_now_ms();
      drain_inbox();
      core.on_time(now, outbox);
      carry_out();
      // Sessions wait for the first list of both kinds: a Hello must already
      // name the bindings Gantry released before (a hub restart takes them back).
      if (listed_clusters && listed_bindings)
        for (auto& [name, session] : sessions) act(session, now);
      flush();
      items.clear();
      polled.clear();
      items.push_back({nullptr, wake_fd, ZMQ_POLLIN, 0});
      items.push_back({admin->handle(), 0, ZMQ_POLLIN, 0});
      TimeMs deadline = now + 1000;
      if (const TimeMs next = core.next_deadline(); next != 0) deadline = std::min(deadline, next);
      for (auto& [name, session] : sessions) {
        deadline = std::min(deadline, session.session.next_deadline());
        if (!session.socket) continue;
        items.push_back({session.socket->handle(), 0, ZMQ_POLLIN, 0});
        polled.push_back(&session);
      }
      try {
        zmq::poll(items, std::chrono::milliseconds(std::max<TimeMs>(0, deadline - now)));
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;
        throw;
      }
      if (readable(items[0])) {
        std::uint64_t count = 0;
        [[maybe_unused]] const ssize_t read = ::read(wake_fd, &count, sizeof count);
      }
      if (readable(items[1])) receive_admin();
      submit_next(agents::steady_now_ms());
      const TimeMs after = agents::steady_now_ms();
      for (std::size_t i = 0; i < polled.size(); ++i)
        if (readable(items[i + 2])) receive(*polled[i], after);
    }
  }

  void drain_inbox() {
    std::vector<InboxItem> items;
    {
      std::lock_guard lock(inbox_mutex);
      items.swap(inbox);
    }
    for (InboxItem& item : items) {
      if (auto* listed = std::get_if<Listed>(&item)) {
        (listed->clusters ? listed_clusters : listed_bindings) = true;
        if (listed->clusters) {
          core.on_clusters_listed(listed->items, outbox);
        } else {
          core.on_bindings_listed(listed->items, outbox);
        }
      } else if (auto* event = std::get_if<Event>(&item)) {
        if (event->cluster) {
          core.on_cluster_event(event->type, event->object, outbox);
        } else {
          core.on_binding_event(event->type, event->object, outbox);
        }
      } else if (auto* failed = std::get_if<ReleaseFailed>(&item)) {
        core.on_release_failed(failed->dispatch_id, failed->reason, outbox);
      } else {
        submit(std::move(std::get<Document>(item)));
      }
      carry_out();
    }
  }

  // What the core decided: sessions opened or closed, messages queued per
  // session, submissions, cancels and binding writes handed on.
  void carry_out() {
    const TimeMs now = agents::steady_now_ms();
    for (const std::string& line : outbox.log) spdlog::info("karmada: {}", line);
    for (const std::string& name : outbox.clusters_added)
      sessions.try_emplace(name, name, options.timing, now);
    for (const std::string& name : outbox.clusters_removed) sessions.erase(name);
    for (auto& [cluster, message] : outbox.messages) {
      const auto found = sessions.find(cluster);
      if (found != sessions.end()) found->second.pending.push_back(std::move(message));
    }
    for (const std::string& cluster : outbox.usage_changed) {
      const auto found = sessions.find(cluster);
      if (found != sessions.end()) found->second.usage_pending = true;
    }
    for (const std::string& job : outbox.cancel_jobs)
      send_admin(protocol::CancelRequest{"job", job});
    if (!outbox.submit.empty() || !outbox.writes.empty()) {
      std::lock_guard lock(write_mutex);
      for (const BindingKey& key : outbox.submit) write_queue.emplace_back(key);
      for (BindingWrite& write : outbox.writes) write_queue.emplace_back(std::move(write));
      write_wake.notify_one();
    }
    outbox = GatewayOutbox{};
  }

  void act(ClusterSession& session, TimeMs now) {
    switch (session.session.due(now)) {
      case HubSession::Action::kNone:
        break;
      case HubSession::Action::kConnect:
        open(session, now);
        break;
      case HubSession::Action::kSendHeartbeat:
        send(session, protocol::Heartbeat{session.cluster, session.session.hub_epoch()});
        session.session.heartbeat_sent(now);
        break;
      case HubSession::Action::kDisconnect:
        spdlog::warn("karmada: cluster {}: hub silent; reconnecting", session.cluster);
        session.socket.reset();
        session.session.lost(now);
        break;
    }
  }

  void open(ClusterSession& session, TimeMs now) {
    session.socket = std::make_unique<zmq::socket_t>(context, zmq::socket_type::dealer);
    // A routing id new for each connection, as an agent's: a fixed one would be
    // refused by the hub's ROUTER while the previous connection lingers.
    session.socket->set(zmq::sockopt::routing_id,
                        "karmada/" + session.cluster + "/" + support::random_hex(8));
    session.socket->set(zmq::sockopt::linger, 0);
    if (options.hub_keys) support::make_curve_client(*session.socket, *options.hub_keys);
    session.socket->connect(options.agents_endpoint);
    send(session, core.hello(session.cluster, kGatewayVersion));
    session.session.connected(now);
  }

  template <class Message>
  bool send(ClusterSession& session, const Message& message) {
    if (!session.socket) return false;
    const std::string frame = protocol::encode(message, session.seq);
    if (!session.socket->send(zmq::buffer(frame), zmq::send_flags::dontwait)) return false;
    ++session.seq;
    return true;
  }

  // Decisions wait until their session is registered, so none is lost to a
  // hub that would answer not_registered.
  void flush() {
    for (auto& [name, session] : sessions) {
      if (!session.session.registered()) continue;
      std::size_t sent = 0;
      for (; sent < session.pending.size(); ++sent) {
        const bool ok =
            std::visit([&](const auto& m) { return send(session, m); }, session.pending[sent]);
        if (!ok) break;
      }
      session.pending.erase(session.pending.begin(),
                            session.pending.begin() + static_cast<std::ptrdiff_t>(sent));
      if (session.usage_pending && send(session, core.usage_report(session.cluster)))
        session.usage_pending = false;
    }
  }

  void receive(ClusterSession& session, TimeMs now) {
    std::string frame;
    while (session.socket && receive_frame(*session.socket, frame)) {
      session.session.heard(now);
      handle(session, frame, now);
    }
    carry_out();
  }

  void handle(ClusterSession& session, const std::string& frame, TimeMs now) {
    protocol::DecodeError error;
    const std::optional<protocol::Envelope> envelope = protocol::decode_envelope(frame, error);
    if (!envelope) {
      spdlog::warn("karmada: cluster {}: undecodable frame: {}", session.cluster, error.message);
      return;
    }
    protocol::visit_message_type(envelope->type, [&](auto tag) {
      using Message = typename decltype(tag)::type;
      if constexpr (protocol::sent<Message>(protocol::Direction::kHubToAgent)) {
        protocol::DecodeError bad;
        if (auto message = protocol::decode_payload<Message>(*envelope, bad)) {
          on_message(session, *message, now);
        } else {
          spdlog::warn("karmada: cluster {}: undecodable {}: {}", session.cluster,
                       protocol::message_type_name(envelope->type), bad.message);
        }
      }
    });
  }

  void on_message(ClusterSession& session, const protocol::Welcome& welcome, TimeMs now) {
    session.session.welcomed(welcome, now);
    spdlog::info("karmada: cluster {} registered with hub epoch {}", session.cluster,
                 welcome.hub_epoch);
    if (send(session, core.usage_report(session.cluster))) session.usage_pending = false;
  }
  void on_message(ClusterSession& session, const protocol::Heartbeat& beat, TimeMs now) {
    if (session.session.registered() && !session.session.epoch_matches(beat.hub_epoch)) {
      session.socket.reset();
      session.session.lost(now);
    }
  }
  void on_message(ClusterSession& session, const protocol::ErrorReply& reply, TimeMs now) {
    if (reply.code == "cluster_has_agent") {
      // Tried again with the session's backoff (up to 32 s): the gateway speaks
      // for the cluster again once its agent is gone.
      if (!session.agent_noted) spdlog::info("karmada: {}", reply.message);
      session.agent_noted = true;
      session.socket.reset();
      session.session.lost(now);
      return;
    }
    session.agent_noted = false;
    spdlog::warn("karmada: cluster {}: hub error {}: {}", session.cluster, reply.code,
                 reply.message);
    if (reply.code == "not_registered") {
      session.socket.reset();
      session.session.lost(now);
    }
  }
  void on_message(ClusterSession& session, const protocol::Prepare& prepare, TimeMs) {
    core.on_prepare(session.cluster, prepare, outbox);
  }
  void on_message(ClusterSession& session, const protocol::Commit& commit, TimeMs) {
    core.on_commit(session.cluster, commit, outbox);
  }
  void on_message(ClusterSession& session, const protocol::Abort& abort, TimeMs) {
    core.on_abort(session.cluster, abort, outbox);
  }
  void on_message(ClusterSession& session, const protocol::Cancel& cancel, TimeMs) {
    core.on_cancel(session.cluster, cancel, outbox);
  }
  // A ResourceBinding's replicas are Karmada's to change: an elastic growth
  // is refused (the hub releases it); a shrink is not carried out.
  void on_message(ClusterSession& session, const protocol::Resize& resize, TimeMs) {
    spdlog::warn("karmada: cluster {}: elastic resize of dispatch {} not supported",
                 session.cluster, resize.dispatch_id);
    send(session, protocol::Resized{resize.dispatch_id, resize.job, resize.part,
                                    resize.elastic_epoch, false,
                                    "Karmada members do not resize elastic jobs"});
  }

  // The pods run in the member cluster, whose API server keeps their logs.
  void on_message(ClusterSession& session, const protocol::LogsRequest& request, TimeMs) {
    protocol::LogsChunk last;
    last.stream = request.stream;
    last.end = true;
    last.error = "cluster " + session.cluster +
                 " is a Karmada member: read its pods' logs with kubectl logs in that cluster";
    send(session, last);
  }
  void on_message(ClusterSession&, const protocol::LogsStop&, TimeMs) {}

  // ---------------------------------------------------------------- admin
  template <class Request>
  void send_admin(const Request& request) {
    const std::string frame = protocol::encode(request, admin_seq++);
    if (!admin->send(zmq::buffer(frame), zmq::send_flags::dontwait))
      spdlog::warn("karmada: admin request to the hub not sent");
  }

  // One submission in flight at a time: the hub validates submissions side
  // by side, and bindings must keep the order Karmada created them in (their
  // jobs' place in the queue). A reply that does not come within
  // kSubmissionWait lets the next one go.
  void submit(Document document) {
    submissions.push_back(std::move(document));
    submit_next(agents::steady_now_ms());
  }

  void submit_next(TimeMs now) {
    if (submissions.empty()) return;
    if (submission_in_flight != 0 && now - submission_sent_at < kSubmissionWait.count()) return;
    const Document& next = submissions.front();
    submission_in_flight = admin_seq;
    submission_sent_at = now;
    admin_requests[admin_seq] = job_name(next.key);
    send_admin(protocol::SubmitJobRequest{next.yaml});
    submissions.pop_front();
  }

  void receive_admin() {
    std::string frame;
    while (receive_frame(*admin, frame)) {
      protocol::DecodeError error;
      const auto envelope = protocol::decode_envelope(frame, error);
      if (!envelope) continue;
      const auto request = admin_requests.find(envelope->seq);
      const std::string job = request == admin_requests.end() ? "" : request->second;
      if (request != admin_requests.end()) admin_requests.erase(request);
      if (auto reply = protocol::decode_payload<protocol::SubmitJobReply>(*envelope, error)) {
        log_submission(job, *reply);
      }
      if (envelope->seq == submission_in_flight) {
        submission_in_flight = 0;
        submit_next(agents::steady_now_ms());
      }
    }
  }

  static void log_submission(const std::string& job, const protocol::SubmitJobReply& reply) {
    if (reply.ok) {
      spdlog::info("karmada: binding submitted as job {}", reply.job);
    } else if (reply.error.find("already exists") != std::string::npos) {
      spdlog::debug("karmada: job {} already known to the hub", job);
    } else {
      spdlog::warn("karmada: binding refused as job {}: {}", job, reply.error);
    }
  }

  // ---------------------------------------------------------------- writer
  using WriteTask = std::variant<BindingKey, BindingWrite>;

  void write_loop() {
    while (true) {
      WriteTask task;
      {
        std::unique_lock lock(write_mutex);
        write_wake.wait(lock, [&] { return stopping || !write_queue.empty(); });
        if (stopping) return;
        task = std::move(write_queue.front());
        write_queue.pop_front();
      }
      carry_out_write(task);
    }
  }

  // An API server that cannot be reached is tried again, 100 ms doubling to
  // 5 s, until it answers or the gateway stops: a release must not be lost. A
  // request it refuses is logged and dropped.
  void carry_out_write(const WriteTask& task) {
    std::chrono::milliseconds backoff{100};
    while (!stopping) {
      try {
        if (const auto* key = std::get_if<BindingKey>(&task)) {
          read_for_submission(*key);
        } else {
          write_binding(std::get<BindingWrite>(task));
        }
        return;
      } catch (const RefusedRequest& refused) {
        spdlog::warn("karmada: {}", refused.what());
        report_if_release(task, refused.what());
        return;
      } catch (const std::exception& unreachable) {
        spdlog::warn("karmada: {}; trying again in {} ms", unreachable.what(), backoff.count());
      }
      std::unique_lock lock(write_mutex);
      write_wake.wait_for(lock, backoff, [&] { return stopping.load(); });
      backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(5));
    }
  }

  // A release that did not happen must not leave its parts waiting for an
  // apply that never comes: the core refuses them at once.
  void report_if_release(const WriteTask& task, const std::string& reason) {
    const auto* write = std::get_if<BindingWrite>(&task);
    if (write == nullptr || write->kind != BindingWrite::Kind::kRelease) return;
    post(ReleaseFailed{write->decision.dispatch_id, reason});
  }

  // The job document needs the workload (queue, tasks, minAvailable of a
  // Volcano Job): read it beside the binding.
  void read_for_submission(const BindingKey& key) {
    const kube::Response got = client.get(binding_path(options.bindings_path, key));
    if (got.status == 404) return;  // deleted meanwhile
    if (got.status != 200)
      throw RefusedRequest("reading binding " + key.namespace_ + "/" + key.name + ": HTTP " +
                           std::to_string(got.status) + " " + support::text_excerpt(got.body));
    const nlohmann::json binding = config::parse_bounded_json(got.body, "ResourceBinding");
    const std::optional<nlohmann::json> workload = read_workload(binding);
    std::string yaml;
    try {
      yaml = job_document(binding, workload ? &*workload : nullptr);
    } catch (const std::exception& bad) {
      spdlog::warn("karmada: binding {}/{} cannot be a Gantry job: {}", key.namespace_, key.name,
                   bad.what());
      return;
    }
    if (const std::optional<std::string> refusal =
            refused_split(binding, workload ? &*workload : nullptr))
      spdlog::info("karmada: binding {}/{}: {}", key.namespace_, key.name, *refusal);
    post(Document{key, std::move(yaml)});
  }

  // The binding's workload, read only for a kind Gantry schedules: those are
  // the reads deploy/karmada/rbac.yaml grants. Unreadable: nullopt, and the
  // job is made from the binding alone.
  std::optional<nlohmann::json> read_workload(const nlohmann::json& binding) {
    if (!is_scheduled_kind(binding)) return std::nullopt;
    const kube::Response read = client.get(workload_path(binding));
    if (read.status != 200) return std::nullopt;
    nlohmann::json workload = config::parse_bounded_json_or_discarded(read.body);
    if (workload.is_discarded()) return std::nullopt;
    return workload;
  }

  // Read, patch with the resourceVersion read, and on a conflict read again.
  // A release's OverridePolicy is written (or an old one deleted) before its
  // patch, in this one thread: Karmada never sees the clusters before the
  // revision, and a refused policy write throws before any patch is sent. A
  // suspension's policy is deleted only after the patch took the clusters.
  void write_binding(const BindingWrite& write) {
    const std::string path = binding_path(options.bindings_path, write.key);
    bool policy_done = false;
    for (int attempt = 1; attempt <= kWriteAttempts && !stopping; ++attempt) {
      const kube::Response got = client.get(path);
      if (got.status == 404) return;
      if (got.status != 200)
        throw RefusedRequest("reading binding " + write.key.namespace_ + "/" + write.key.name +
                             ": HTTP " + std::to_string(got.status) + " " +
                             support::text_excerpt(got.body));
      const nlohmann::json binding = config::parse_bounded_json(got.body, "ResourceBinding");
      if (already_written(write, binding)) return;
      if (write.kind == BindingWrite::Kind::kRelease && !policy_done) {
        carry_out_policy(write);
        policy_done = true;
      }
      const std::string version =
          binding.value("metadata", nlohmann::json::object()).value("resourceVersion", "");
      const std::string patch = write.kind == BindingWrite::Kind::kRelease
                                    ? release_patch(write.decision, version)
                                    : suspend_patch(version);
      const kube::Response patched = client.patch(path, patch, kube::PatchType::kMerge);
      if (patched.status == 200) {
        spdlog::info("karmada: binding {}/{} {} (dispatch {})", write.key.namespace_,
                     write.key.name,
                     write.kind == BindingWrite::Kind::kRelease ? "released" : "suspended",
                     write.decision.dispatch_id);
        if (write.kind == BindingWrite::Kind::kSuspend) carry_out_policy(write);
        return;
      }
      if (patched.status != 409)
        throw RefusedRequest("patching binding " + write.key.namespace_ + "/" + write.key.name +
                             ": HTTP " + std::to_string(patched.status) + " " +
                             support::text_excerpt(patched.body));
      spdlog::info("karmada: binding {}/{} changed under the patch (409): reading it again",
                   write.key.namespace_, write.key.name);
    }
    throw RefusedRequest("binding " + write.key.namespace_ + "/" + write.key.name +
                         " not written after " + std::to_string(kWriteAttempts) + " conflicts");
  }

  void carry_out_policy(const BindingWrite& write) {
    if (write.policy == BindingWrite::Policy::kWritePolicy) create_override_policy(write);
    if (write.policy == BindingWrite::Policy::kDeletePolicy) delete_override_policy(write.key);
  }

  // Create; one already there (an earlier split's, whose delete failed) is
  // deleted and created again: only create and delete are granted
  // (deploy/karmada/rbac.yaml), and the binding is suspended meanwhile.
  void create_override_policy(const BindingWrite& write) {
    const std::string collection = override_policies_path(write.key.namespace_);
    const std::string body = write.override_policy.dump();
    kube::Response created = client.post(collection, body);
    if (created.status == 409) {
      delete_override_policy(write.key);
      created = client.post(collection, body);
    }
    if (created.status != 200 && created.status != 201)
      throw RefusedRequest("writing OverridePolicy " + write.key.namespace_ + "/" +
                           override_policy_name(write.key) + " for the split: HTTP " +
                           std::to_string(created.status) + " " +
                           support::text_excerpt(created.body));
    spdlog::info("karmada: OverridePolicy {}/{} written (dispatch {})", write.key.namespace_,
                 override_policy_name(write.key), write.decision.dispatch_id);
  }

  void delete_override_policy(const BindingKey& key) {
    const std::string name = override_policy_name(key);
    const kube::Response deleted = client.remove(override_policies_path(key.namespace_) + "/" + name);
    if (deleted.status == 404) return;
    if (deleted.status != 200 && deleted.status != 202)
      throw RefusedRequest("deleting OverridePolicy " + key.namespace_ + "/" + name + ": HTTP " +
                           std::to_string(deleted.status) + " " +
                           support::text_excerpt(deleted.body));
    spdlog::info("karmada: OverridePolicy {}/{} deleted", key.namespace_, name);
  }

  // A release already shown (a retried write, a re-list), or a suspension
  // of a dispatch the binding no longer carries, needs no patch.
  static bool already_written(const BindingWrite& write, const nlohmann::json& binding) {
    const std::optional<Decision> shown = released_decision(binding);
    if (write.kind == BindingWrite::Kind::kRelease)
      return shown && shown->dispatch_id == write.decision.dispatch_id;
    return !shown || shown->dispatch_id != write.decision.dispatch_id;
  }

  GatewayOptions options;
  kube::Client client;
  GatewayCore core{GatewayCoreOptions{options.apply_timeout_ms,
                                      options.termination_grace_ms}};  // loop thread only
  GatewayOutbox outbox;
  zmq::context_t context{1};
  std::unique_ptr<zmq::socket_t> admin;
  std::uint64_t admin_seq = 1;
  std::map<std::uint64_t, std::string> admin_requests;  // seq -> job submitted
  std::deque<Document> submissions;                     // waiting for the one in flight
  std::uint64_t submission_in_flight = 0;               // its admin seq; 0: none
  TimeMs submission_sent_at = 0;
  std::map<std::string, ClusterSession> sessions;
  bool listed_clusters = false;
  bool listed_bindings = false;
  int wake_fd;
  std::mutex inbox_mutex;
  std::vector<InboxItem> inbox;
  std::mutex write_mutex;
  std::condition_variable write_wake;
  std::deque<WriteTask> write_queue;
  std::atomic<bool> stopping{false};
  std::unique_ptr<kube::Reflector> clusters_reflector;
  std::unique_ptr<kube::Reflector> bindings_reflector;
  std::thread writer;
  std::thread loop;
};

Gateway::Gateway(GatewayOptions options)
    : running_(std::make_unique<Running>(std::move(options))) {}

Gateway::~Gateway() {
  stop();
}

void Gateway::start() {
  running_->start();
}

void Gateway::stop() {
  running_->stop();
}

}  // namespace gantry::karmada
