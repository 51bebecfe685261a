#include "bench/e2e/e2e_run.hpp"

#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>

#include "bench/e2e/fake_clusters.hpp"
#include "bench/e2e/hub_process.hpp"
#include "bench/e2e/job_yaml.hpp"
#include "bench/e2e/proc_cpu.hpp"
#include "bench/e2e/proc_memory.hpp"
#include "bench/e2e/trace_csv.hpp"
#include "protocol/envelope.hpp"
#include "support/free_port.hpp"
#include "support/temp_dir.hpp"

namespace gantry::bench::e2e {

namespace {

// A fresh state directory per run (an old gantry.db would re-queue its jobs),
// removed afterwards unless the run failed and its hub.log is worth reading.
class StateDir {
 public:
  explicit StateDir(const std::string& requested) {
    if (requested.empty()) {
      owned_.emplace("gantry-bench-e2e");
      path_ = owned_->path();
      return;
    }
    path_ = requested;
    std::filesystem::create_directories(path_);
  }

  const std::filesystem::path& path() const { return path_; }
  std::string keep() {
    if (owned_) owned_->keep();
    return path_.string();
  }

 private:
  std::optional<support::TempDir> owned_;  // none: the directory asked for
  std::filesystem::path path_;
};

double process_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

std::uintmax_t store_bytes(const std::filesystem::path& dir) {
  std::uintmax_t total = 0;
  for (const char* name : {"gantry.db", "gantry.db-wal"}) {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(dir / name, error);
    if (!error) total += size;
  }
  return total;
}

void wait_commits(const Timeline& timeline, std::uint32_t expected, double seconds) {
  const std::int64_t deadline = now_ns() + static_cast<std::int64_t>(seconds * 1e9);
  while (timeline.committed.load(std::memory_order_acquire) < expected && now_ns() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string loopback_endpoint() {
  return "tcp://127.0.0.1:" + std::to_string(support::free_loopback_port());
}

ClusterShape shape_of(const E2eOptions& options) {
  ClusterShape shape;
  shape.nodes = options.nodes;
  shape.gpus_per_node = options.gpus_per_node;
  shape.hold_ns = std::int64_t{options.hold_ms} * 1'000'000;
  shape.usage_reports = options.usage_reports;
  return shape;
}

std::vector<std::string> submit_frames(std::uint32_t jobs) {
  std::vector<std::string> frames;
  frames.reserve(jobs);
  for (std::uint32_t i = 0; i < jobs; ++i) {
    frames.push_back(protocol::encode(protocol::SubmitJobRequest{job_yaml(i)}, i + 1));
  }
  return frames;
}

// Everything that needs the hub running.
void measure_hub(const E2eOptions& options, StateDir& state, E2eFigures& figures,
                 Timeline& timeline) {
  HubLaunch launch{options.hub_binary.empty() ? default_hub_binary() : options.hub_binary,
                   loopback_endpoint(),
                   loopback_endpoint(),
                   state.path(),
                   state.path() / "hub.log",
                   options.hub_log_level,
                   static_cast<int>(options.heartbeat_ms),
                   "",
                   options.store};
  const bool serves_http = options.scrape_ms > 0 || options.web_stream;
  const std::uint16_t http_port = serves_http ? support::free_loopback_port() : 0;
  if (http_port != 0) launch.http_listen = "127.0.0.1:" + std::to_string(http_port);
  HubProcess hub(launch);
  FakeClusters clusters(launch.agents_endpoint, options.clusters, shape_of(options), timeline);
  clusters.start();
  LoadGenerator load(launch.admin_endpoint);
  const std::uint32_t ready = load.wait_clusters_ready(options.clusters, 30);
  if (ready < options.clusters || !hub.running()) {
    throw std::runtime_error("only " + std::to_string(ready) + " of " +
                             std::to_string(options.clusters) + " clusters became ready; see " +
                             state.keep() + "/hub.log");
  }
  const std::vector<std::string> frames = submit_frames(options.jobs);
  std::optional<Scraper> scraper;
  if (options.scrape_ms > 0)
    scraper.emplace(http_port, std::chrono::milliseconds(options.scrape_ms));
  std::optional<PageWatcher> page;
  if (options.web_stream) page.emplace(http_port);
  const auto hub_before = thread_cpu_seconds(hub.pid());
  const double bench_before = process_cpu_seconds();
  figures.load = load.run(frames, LoadOptions{options.window, options.rate, 30}, timeline);
  wait_commits(timeline, figures.load.acked, options.settle_seconds);
  if (scraper) figures.scrapes = scraper->stop();
  if (page) figures.page = page->stop();
  figures.hub_thread_cpu_s = cpu_delta(thread_cpu_seconds(hub.pid()), hub_before);
  figures.bench_cpu_s = process_cpu_seconds() - bench_before;
  figures.hub_resident_bytes = resident_bytes_of(hub.pid());
  clusters.stop();
  figures.clusters = clusters.totals();
  figures.store_bytes = store_bytes(state.path());
  hub.stop();
}

void summarize(const Timeline& timeline, E2eFigures& figures) {
  figures.committed = timeline.committed.load();
  figures.submit_to_ack = interval_percentiles(timeline.submit_ns, timeline.ack_ns);
  figures.submit_to_prepare = interval_percentiles(timeline.submit_ns, timeline.prepare_ns);
  figures.submit_to_commit = interval_percentiles(timeline.submit_ns, timeline.commit_ns);
  figures.submits_per_s = rate_since_first_submit(timeline, timeline.ack_ns);
  figures.commits_per_s = rate_since_first_submit(timeline, timeline.commit_ns);
  figures.load_seconds = figures.submits_per_s > 0 ? figures.load.acked / figures.submits_per_s : 0;
  figures.ratio_to_raw =
      figures.raw.pipelined_per_s > 0 ? figures.submits_per_s / figures.raw.pipelined_per_s : 0;
  for (const auto& [name, seconds] : figures.hub_thread_cpu_s) figures.hub_cpu_s += seconds;
}

}  // namespace

std::string default_hub_binary() {
#ifdef GANTRY_HUB_BINARY
  return GANTRY_HUB_BINARY;
#else
  return "gantry-hub";
#endif
}

E2eFigures run_e2e(const E2eOptions& options) {
  E2eFigures figures;
  // Same frame size as a submission, so the ceiling compares like with like.
  const std::size_t frame_bytes =
      protocol::encode(protocol::SubmitJobRequest{job_yaml(options.jobs)}, 1).size();
  figures.raw = measure_raw_echo(options.raw_messages, options.window, frame_bytes);
  StateDir state(options.state_dir);
  Timeline timeline(options.jobs);
  measure_hub(options, state, figures, timeline);
  summarize(timeline, figures);
  if (!options.trace_file.empty()) write_trace_csv(options.trace_file, timeline);
  const bool incomplete =
      figures.load.acked < options.jobs || figures.committed < figures.load.acked;
  if (incomplete) figures.kept_state_dir = state.keep();
  return figures;
}

}  // namespace gantry::bench::e2e
