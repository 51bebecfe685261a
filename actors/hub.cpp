// Wiring: registers the actors' message types, spawns and connects them, routes
// inbound messages, and runs the whole hub (store + actors + bridge).
#include "actors/hub.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>
#include <thread>
#include <utility>

#include "actors/actor_spawn.hpp"
#include "actors/fd_limit.hpp"
#include "actors/hub_http.hpp"
#include "actors/hub_identity.hpp"
#include "actors/hub_security.hpp"
#include "actors/hub_standby.hpp"
#include "actors/io_bridge.hpp"
#include "actors/state_lock.hpp"
#include "actors/store_choice.hpp"
#include "actors/web_login_desk.hpp"
#include "support/web_sessions.hpp"

namespace gantry::actors {

hub::TimeMs wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void register_hub_message_types(caf::actor_system_config& config) {
  config.add_message_types<caf::id_block::gantry_hub>();
}

// Dispatch ids are generation << 40 | serial: 2^40 dispatches per hub start.
constexpr int kDispatchSerialBits = 40;

HubActors spawn_hub_actors(caf::actor_system& system, const HubActorsConfig& config) {
  OutboundSink& sink = *config.sink;
  const HubSettings& given = config.settings;
  const std::chrono::milliseconds expiry = given.agents.heartbeat_interval * given.agents.liveness;
  // Read first: a store that cannot be read fails before any actor runs.
  const std::vector<StoredJob> unfinished = config.store->unfinished();
  const std::vector<std::string> queues = config.store->queues();
  SchedulerSettings settings;
  settings.core = given.scheduling;
  const std::uint64_t generation = config.store->start_generation();
  settings.core.first_dispatch_id = (generation << kDispatchSerialBits) + 1;
  protocol::HubInfo self = config.self;
  self.generation = static_cast<std::int64_t>(generation);
  config.store->describe_self(std::move(self));
  settings.state_first_dispatch_id = (config.store->first_generation() << kDispatchSerialBits) + 1;
  settings.later_generations_from =
      settings.core.first_dispatch_id - 1 + (hub::DispatchId{1} << kDispatchSerialBits);
  if (!unfinished.empty()) settings.recovery_grace = given.recovery_grace.value_or(expiry);
  settings.jobs_to_restore = unfinished.size();
  settings.recovery_limit = given.agents.lost_grace;
  settings.cordoned = config.store->cordoned_clusters();
  settings.deleted_stop_grace = given.agents.lost_grace;
  settings.keep_finished = given.keep_finished;
  settings.open_history = [store = config.store] { return store->open_history(); };
  HubActors actors;
  actors.store = spawn_store(system, config.store, config.detached_store, sink, config.clock,
                             given.keep_finished, config.io_metrics);
  actors.dispatcher = spawn_dispatcher(system, sink, config.clock, given.agents.heartbeat_interval,
                                       given.prepare_timeout);
  actors.scheduler =
      spawn_scheduler(system, sink, config.clock, actors.dispatcher, actors.store, settings);
  caf::anon_send(actors.dispatcher, connect_atom_v, actors.scheduler);
  caf::anon_send(actors.store, connect_atom_v, actors.scheduler);
  actors.registry = spawn_registry(system, sink, config.clock, given.agents, config.hub_epoch,
                                   actors.scheduler, actors.dispatcher);
  auto classes = std::make_shared<config::PriorityClassRegistry>();
  for (const std::string& yaml : config.store->priority_classes()) {
    try {
      classes->apply(config::parse_priority_class(yaml));
    } catch (const std::exception& e) {
      spdlog::error("a PriorityClass from the store is no longer valid and is ignored: {}",
                    e.what());
    }
  }
  for (std::size_t i = 0; i < std::max<std::size_t>(1, config.submission_validators); ++i)
    actors.queues.push_back(
        spawn_queue(system, sink, config.clock, actors.scheduler, actors.store, classes));
  // Queues first: the restored jobs are re-submitted into them (the first
  // queue actor parses both, and hands them on in this order).
  for (const std::string& yaml : queues)
    caf::anon_send(actors.queues.front(), restore_atom_v, protocol::ApplyRequest{yaml});
  // Before any new submission can arrive, so the old jobs keep their place.
  for (const StoredJob& job : unfinished) caf::anon_send(actors.queues.front(), job);
  if (!unfinished.empty()) {
    spdlog::info("re-queueing {} unfinished job(s) from {}", unfinished.size(),
                 config.store->where());
  }
  return actors;
}

void stop_hub_actors(const HubActors& actors) {
  for (const caf::actor& actor : actors.queues)
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  for (const caf::actor& actor :
       {actors.registry, actors.dispatcher, actors.scheduler, actors.store}) {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }
}

namespace {

// Where each inbound message goes. One overload per message the hub accepts and
// no catch-all, so a new inbound message without a route does not compile.
class InboundRoutes {
 public:
  InboundRoutes(const HubActors& actors, WebLoginDesk* web, std::size_t& next_queue, ReplyTo from)
      : actors_(actors), web_(web), next_queue_(next_queue), from_(std::move(from)) {}

  // Agent traffic: the registry knows the sessions.
  void operator()(protocol::Hello& body) { to(actors_.registry, body); }
  void operator()(protocol::Heartbeat& body) { to(actors_.registry, body); }
  void operator()(protocol::UsageReport& body) { to(actors_.registry, body); }
  void operator()(protocol::Admit& body) { to(actors_.registry, body); }
  void operator()(protocol::Reject& body) { to(actors_.registry, body); }
  void operator()(protocol::StatusUpdate& body) { to(actors_.registry, body); }
  void operator()(protocol::Resized& body) { to(actors_.registry, body); }
  void operator()(protocol::ErrorReply& body) { to(actors_.registry, body); }
  // A replica's log on its way to gantryctl: the dispatcher knows the stream.
  void operator()(protocol::LogsChunk& body) { to(actors_.dispatcher, body); }

  // Submissions are validated in parallel, round-robin over the queue actors.
  void operator()(protocol::SubmitJobRequest& body) { to(next_queue(), body); }
  void operator()(protocol::SubmitJobsRequest& body) { to(next_queue(), body); }
  // Queue changes go through one queue actor, so they apply in arrival order.
  void operator()(protocol::ApplyRequest& body) { to(actors_.queues.front(), body); }
  void operator()(protocol::DeleteRequest& body) { to(actors_.queues.front(), body); }

  // Questions about jobs, clusters and queues: the scheduler holds the answers.
  // PriorityClasses live with the queue actors, the hubs on the store with
  // the store; the rest with the scheduler.
  void operator()(protocol::ListRequest& body) {
    if (body.kind == "hubs") return to(actors_.store, body);
    to(body.kind == "priorityclasses" ? actors_.queues.front() : actors_.scheduler, body);
  }
  void operator()(protocol::DescribeRequest& body) { to(actors_.scheduler, body); }
  void operator()(protocol::CancelRequest& body) { to(actors_.scheduler, body); }
  // Cordon, uncordon, drain: the scheduler owns the clusters' state.
  void operator()(protocol::ClusterActionRequest& body) { to(actors_.scheduler, body); }
  // The scheduler knows which cluster runs the replica; it asks that agent.
  void operator()(protocol::LogsRequest& body) { to(actors_.scheduler, body); }
  // A web login ticket: no actor holds the web view's sessions.
  void operator()(protocol::WebLoginRequest& body) {
    if (web_ == nullptr) return spdlog::warn("a web login request dropped: this hub has no desk");
    web_->answer(from_.peer, from_.seq, from_.key, body);
  }

 private:
  const caf::actor& next_queue() {
    next_queue_ = (next_queue_ + 1) % actors_.queues.size();
    return actors_.queues[next_queue_];
  }

  template <class Body>
  void to(const caf::actor& actor, Body& body) {
    caf::anon_send(actor, from_, std::move(body));
  }

  const HubActors& actors_;
  WebLoginDesk* web_;
  std::size_t& next_queue_;
  ReplyTo from_;
};

}  // namespace

void InboundRouter::on_message(InboundMessage message) {
  Sender& sender = message.sender;
  std::visit(InboundRoutes{actors_, web_, next_queue_,
                           ReplyTo{std::move(message.peer), message.seq, std::move(sender.key),
                                   sender.role, std::move(sender.queues)}},
             message.body);
}

// A Prepare or Commit that could not be sent is sent again by the dispatcher
// until its answer is due (then it counts as a Reject): nothing to do here.
void InboundRouter::on_undeliverable(const OutboundFrame& frame, std::string_view why) {
  // A gantryctl that went away stops its watches and log streams.
  if (frame.channel == Channel::kAdmin) {
    caf::anon_send(actors_.scheduler, gone_atom_v, frame.peer);
    caf::anon_send(actors_.dispatcher, gone_atom_v, frame.peer);
  }
  if (frame.dispatch_id != 0) {
    spdlog::info(
        "frame of dispatch {} to peer '{}' not sent ({}): sent again until its answer is due",
        frame.dispatch_id, frame.peer, why);
  } else {
    spdlog::debug("frame to {} peer '{}' dropped: {}", channel_name(frame.channel), frame.peer,
                  why);
  }
}

// ------------------------------------------------------------------ Hub

namespace {

std::uint64_t new_hub_epoch() {
  // Random, so agents notice a restart even within the same millisecond.
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device() ^ static_cast<std::uint64_t>(wall_clock_ms());
}

caf::actor_system_config& hub_system_config(caf::actor_system_config& config) {
  register_hub_message_types(config);
  config.set("logger.file-verbosity", caf::atom("quiet"));
  config.set("logger.console-verbosity", caf::atom("quiet"));
  config.set("scheduler.max-threads", 2);
  return config;
}

BridgeSecurity bridge_security(const HubOptions& options, const HubSecurityFiles& files,
                               support::CurveKeyPair& hub_keys) {
  BridgeSecurity security;
  security.insecure = options.insecure;
  security.audit = std::make_shared<AuditLog>(files.audit);
  if (options.insecure) {
    spdlog::warn(
        "*** --insecure: the agents and admin sockets are PLAINTEXT and "
        "UNAUTHENTICATED: anyone who reaches {} or {} may run jobs and administer "
        "this hub ***",
        options.agents_endpoint, options.admin_endpoint);
    return security;
  }
  hub_keys = load_or_generate_hub_keys(files.key);
  security.hub_keys = hub_keys;
  security.access = load_access_list(files.access, hub_keys);
  spdlog::info("sockets: CurveZMQ, hub public key {} ({}); {} key(s) allowed by {}; audit log {}",
               hub_keys.public_key, files.key.string(), security.access->size(),
               files.access.string(), files.audit.string());
  return security;
}

// The options' limits, the connections kept within the descriptors this
// process may open (raised to the hard limit first).
SocketLimits socket_limits(const HubOptions& options) {
  SocketLimits limits;
  limits.max_frame_bytes = options.max_frame_bytes;
  limits.idle_timeout = options.idle_timeout;
  const FdLimit descriptors = raise_fd_limit();
  limits.max_connections =
      connections_within_fd_limit(options.max_connections, 2, descriptors.soft);
  if (limits.max_connections < options.max_connections) {
    spdlog::warn("--max-connections {}: only {} per socket fit in {} file descriptors",
                 options.max_connections, limits.max_connections, descriptors.soft);
  }
  return limits;
}

}  // namespace

struct Hub::Running {
  explicit Running(const HubOptions& options)
      : lock(options.state_dir),
        files(security_files(options)),
        self(hub_self(options, wall_clock_ms())),
        store(open_store(options)),
        io_metrics(std::make_shared<HubIoMetrics>()),
        bridge(BridgeEndpoints{options.agents_endpoint, options.admin_endpoint,
                               socket_limits(options)},
               bridge_security(options, files, keys), io_metrics),
        system(hub_system_config(config)) {
    insecure = options.insecure;
    HubActorsConfig actors_config;
    actors_config.sink = &bridge;
    actors_config.settings = options.settings;
    actors_config.hub_epoch = new_hub_epoch();
    actors_config.store = store;
    actors_config.detached_store = true;
    // A validator per core: CAF runs as many workers, and parsing is most of a submission.
    actors_config.submission_validators = std::max(2u, std::thread::hardware_concurrency());
    actors_config.io_metrics = io_metrics;
    actors_config.self = self;
    actors = spawn_hub_actors(system, actors_config);
    try {
      // The HTTP endpoint first: gantryctl web's answers name its address.
      if (!options.http.listen.empty()) start_http(options);
      web_desk = std::make_unique<WebLoginDesk>(web_login_desk_options(options), bridge);
      router = std::make_unique<InboundRouter>(actors, web_desk.get());
      bridge.start(*router);
    } catch (...) {
      stop();  // else ~actor_system waits for the actors forever
      throw;
    }
    spdlog::info("hub epoch {}; agents on {}, admin on {}, state in {}", actors_config.hub_epoch,
                 bridge.agents_endpoint(), bridge.admin_endpoint(), store->where());
  }

  std::function<std::shared_ptr<const AccessList>()> access_in_force() {
    return [this] { return bridge.current_access(); };
  }

  void start_http(const HubOptions& options) {
    http = std::make_unique<HubHttp>(
        options.http, options.state_dir, [store = store] { return store->open_history(); },
        options.insecure, system, actors.scheduler, io_metrics,
        WebAccess{web_sessions, access_in_force(), bridge.audit_log()});
  }

  WebLoginDeskOptions web_login_desk_options(const HubOptions& options) {
    const std::string host = options.advertise_host.empty() ? host_name() : options.advertise_host;
    return WebLoginDeskOptions{http ? http->url(host) : "", options.insecure, web_sessions,
                               access_in_force(), wall_clock_ms};
  }

  // The store, once this hub holds it. While another hub holds an etcd
  // store, this one stands by (actors/hub_standby.hpp) on its admin and
  // HTTP addresses, closed again before the hub binds them for itself.
  std::shared_ptr<JobStore> open_store(const HubOptions& options) {
    std::shared_ptr<JobStore> opened =
        open_job_store(options, self, [&](const protocol::HubInfo& leader) {
          if (!standby)
            standby = std::make_unique<HubStandby>(options, bridge_security(options, files, keys));
          standby->leader_is(leader);
        });
    standby.reset();
    return opened;
  }

  void stop() {
    if (stopped) return;
    stopped = true;
    if (http) http->stop();  // before the scheduler it asks stops
    bridge.stop();
    stop_hub_actors(actors);
    system.await_all_actors_done();
  }

  ~Running() { stop(); }

  StateLock lock;  // first: nothing in the state directory is touched without it
  HubSecurityFiles files;
  support::CurveKeyPair keys;  // filled by bridge_security(), before `bridge`
  bool insecure = false;
  protocol::HubInfo self;
  std::unique_ptr<HubStandby> standby;  // only while another hub holds the store
  std::shared_ptr<JobStore> store;
  std::shared_ptr<HubIoMetrics> io_metrics;  // the bridge's, the store's, read by `http`
  IoBridge bridge;
  caf::actor_system_config config;
  caf::actor_system system;
  HubActors actors;
  // gantryctl web's tickets and the browsers' sessions: the desk issues, the
  // HTTP endpoint redeems.
  std::shared_ptr<support::WebSessions> web_sessions = std::make_shared<support::WebSessions>();
  std::unique_ptr<HubHttp> http;
  std::unique_ptr<WebLoginDesk> web_desk;
  std::unique_ptr<InboundRouter> router;
  bool stopped = false;
};

Hub::Hub(const HubOptions& options) : running_(std::make_unique<Running>(options)) {}

Hub::~Hub() = default;

const std::string& Hub::agents_endpoint() const {
  return running_->bridge.agents_endpoint();
}
const std::string& Hub::admin_endpoint() const {
  return running_->bridge.admin_endpoint();
}

std::uint16_t Hub::http_port() const {
  return running_->http ? running_->http->port() : 0;
}

const support::CurveKeyPair& Hub::keys() const {
  return running_->keys;
}

bool Hub::reload_access() {
  if (running_->insecure) {
    spdlog::info("--insecure: no access list to reload");
    return true;
  }
  try {
    std::shared_ptr<const AccessList> access =
        load_access_list(running_->files.access, running_->keys);
    const std::size_t keys = access->size();
    running_->bridge.set_access(std::move(access));
    spdlog::info("access list {} reloaded: {} key(s)", running_->files.access.string(), keys);
    return true;
  } catch (const std::exception& e) {
    spdlog::error("access list not reloaded, the current one stays: {}", e.what());
    return false;
  }
}

void Hub::stop() {
  running_->stop();
}

}  // namespace gantry::actors
