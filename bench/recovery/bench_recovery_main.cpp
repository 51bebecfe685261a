// gantry-bench-recovery: how fast the hub's store takes writes, and how fast
// a hub restarts on a big state (issue 28): N stored jobs, a share of them
// unfinished, then the real gantry-hub started on it, timed until its admin
// socket answers and until its first scheduling pass. Prints tables and a
// last-line JSON object; never fails on a number.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include "protocol/wire_codec.hpp"  // msgpack, and the encoding of wire structs
#include <sstream>
#include <string>
#include <thread>

#include "actors/sqlite_job_store.hpp"
#include "bench/e2e/hub_process.hpp"
#include "config/volcano_job.hpp"
#include "protocol/messages.hpp"
#include "support/free_port.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using gantry::actors::FinishedJob;
using gantry::actors::SqliteJobStore;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A one-task Volcano Job as users submit them (about 500 bytes).
std::string job_yaml(std::int64_t i) {
  return "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: job-" +
         std::to_string(i) +
         "\nspec:\n  queue: default\n  minAvailable: 2\n  tasks:\n    - name: worker\n"
         "      replicas: 2\n      template:\n        spec:\n          containers:\n"
         "            - name: main\n              image: trainer:1\n"
         "              command: [python3, train.py]\n              resources:\n"
         "                requests: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"4\"}\n";
}

// The validated spec the hub stores with each submission, packed.
std::string packed_spec(std::int64_t i) {
  static const gantry::protocol::JobSpec base = gantry::config::parse_volcano_job(job_yaml(0));
  gantry::protocol::JobSpec spec = base;
  spec.name = "job-" + std::to_string(i);
  msgpack::sbuffer packed;
  msgpack::pack(packed, spec);
  return std::string(packed.data(), packed.size());
}

// What the hub stores at a job's end: describe's answer, packed.
std::string end_record(std::int64_t i) {
  gantry::protocol::DescribeReply record;
  record.ok = true;
  record.job.name = "job-" + std::to_string(i);
  record.job.queue = "default";
  record.job.phase = "Completed";
  record.job.clusters = {"east"};
  record.job.requests = {{"cpu", 16000}, {"nvidia.com/gpu", 8000}};
  record.job.parts = {{"east", {{"worker", 2}}}};
  record.events = {"submitted", "dispatched to east", "Running on east", "Completed on east"};
  msgpack::sbuffer packed;
  msgpack::pack(packed, record);
  return std::string(packed.data(), packed.size());
}

struct WriteRate {
  std::int64_t batch = 0;
  double jobs_per_second = 0;
};

// Submissions committed `batch` at a time (the store actor's group commit
// under load), for `jobs` jobs.
WriteRate measure_writes(const std::filesystem::path& dir, std::int64_t jobs, std::int64_t batch) {
  std::filesystem::remove_all(dir);
  SqliteJobStore store(dir);
  const auto start = Clock::now();
  for (std::int64_t i = 0; i < jobs;) {
    store.begin();
    for (std::int64_t b = 0; b < batch && i < jobs; ++b, ++i)
      store.add("job-" + std::to_string(i), job_yaml(i), 1000 + i, "bench", packed_spec(i));
    store.commit();
  }
  return {batch, static_cast<double>(jobs) / seconds_since(start)};
}

// `jobs` jobs, the first (jobs - unfinished) ended with their records.
double fill(const std::filesystem::path& dir, std::int64_t jobs, std::int64_t unfinished) {
  std::filesystem::remove_all(dir);
  const auto start = Clock::now();
  SqliteJobStore store(dir);
  store.start_generation();
  const std::int64_t ended = jobs - unfinished;
  // Ended over the last days, within --keep-finished's default week.
  const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  const std::int64_t first_end = now_ms - ended * 500;
  constexpr std::int64_t kBatch = 10'000;
  for (std::int64_t i = 0; i < jobs;) {
    store.begin();
    for (std::int64_t b = 0; b < kBatch && i < jobs; ++b, ++i) {
      const std::int64_t end = first_end + i * 500;
      const std::int64_t row =
          store.add("job-" + std::to_string(i), job_yaml(i), end - 60'000, "bench", packed_spec(i));
      if (i < ended)
        store.finish(
            FinishedJob{row, "Completed", end, "default", end - 30'000, 8000, 0, end_record(i)});
    }
    store.commit();
  }
  return seconds_since(start);
}

bool log_contains(const std::filesystem::path& log, const std::string& text) {
  std::ifstream in(log);
  std::stringstream content;
  content << in.rdbuf();
  return content.str().find(text) != std::string::npos;
}

bool admin_answers(const std::string& gantryctl, const std::string& endpoint) {
  const std::string command =
      gantryctl + " --insecure --hub " + endpoint + " --timeout 2s get clusters >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

struct Restart {
  double admin_s = -1;       // until the admin socket answers
  double first_pass_s = -1;  // until the first scheduling pass
};

Restart restart(const std::filesystem::path& bin, const std::filesystem::path& dir,
                const std::filesystem::path& log) {
  std::filesystem::remove(log);
  gantry::bench::e2e::HubLaunch launch;
  launch.binary = (bin / "gantry-hub").string();
  launch.agents_endpoint =
      "tcp://127.0.0.1:" + std::to_string(gantry::support::free_loopback_port());
  launch.admin_endpoint =
      "tcp://127.0.0.1:" + std::to_string(gantry::support::free_loopback_port());
  launch.state_dir = dir;
  launch.log_file = log;
  launch.log_level = "info";
  Restart result;
  const auto start = Clock::now();
  gantry::bench::e2e::HubProcess hub(launch);
  const std::string gantryctl = (bin / "gantryctl").string();
  while (seconds_since(start) < 600 && hub.running()) {
    if (result.admin_s < 0 && admin_answers(gantryctl, launch.admin_endpoint))
      result.admin_s = seconds_since(start);
    if (result.first_pass_s < 0 && log_contains(log, "first scheduling pass"))
      result.first_pass_s = seconds_since(start);
    if (result.admin_s >= 0 && result.first_pass_s >= 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("gantry-bench-recovery: store writes and hub restart on a big state");
  std::int64_t jobs = 1'000'000;
  std::int64_t unfinished = 100'000;
  std::string work = "/tmp/gantry-bench-recovery";
  std::filesystem::path bin = std::filesystem::canonical("/proc/self/exe").parent_path();
  app.add_option("--jobs", jobs, "stored jobs (default 1000000)");
  app.add_option("--unfinished", unfinished, "of them not ended (default 100000)");
  app.add_option("--dir", work, "scratch directory (default /tmp/gantry-bench-recovery)");
  app.add_option("--bin", bin, "where gantry-hub and gantryctl are (default: beside this program)");
  CLI11_PARSE(app, argc, argv);

  const std::filesystem::path root(work);
  std::filesystem::create_directories(root);
  std::printf(
      "store writes (WAL, synchronous=NORMAL: a commit is durable against a hub crash,\n"
      "not a power loss; checkpoints fsync), one submission of ~500 bytes per job:\n");
  std::printf("%10s %14s\n", "BATCH", "JOBS/S");
  std::vector<WriteRate> rates;
  for (const std::int64_t batch : {1, 10, 100, 1000}) {
    rates.push_back(measure_writes(root / "writes", batch == 1 ? 20'000 : 100'000, batch));
    std::printf("%10lld %14.0f\n", static_cast<long long>(batch), rates.back().jobs_per_second);
  }
  const double fill_s = fill(root / "state", jobs, unfinished);
  const auto db_bytes = std::filesystem::file_size(root / "state" / "gantry.db");
  std::printf("\nstate: %lld jobs (%lld unfinished), %.0f MB, filled in %.1f s\n",
              static_cast<long long>(jobs), static_cast<long long>(unfinished),
              static_cast<double>(db_bytes) / 1e6, fill_s);
  const Restart result = restart(bin, root / "state", root / "hub.log");
  std::printf("%-34s %8.2f s\n", "restart until admin answers", result.admin_s);
  std::printf("%-34s %8.2f s\n", "restart until first pass", result.first_pass_s);
  std::printf(
      "{\"jobs\":%lld,\"unfinished\":%lld,\"db_mb\":%.0f,\"admin_s\":%.2f,"
      "\"first_pass_s\":%.2f",
      static_cast<long long>(jobs), static_cast<long long>(unfinished),
      static_cast<double>(db_bytes) / 1e6, result.admin_s, result.first_pass_s);
  for (const WriteRate& rate : rates)
    std::printf(",\"writes_per_s_batch_%lld\":%.0f", static_cast<long long>(rate.batch),
                rate.jobs_per_second);
  std::printf("}\n");
  return 0;
}
