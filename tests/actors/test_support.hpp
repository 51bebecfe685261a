// Helpers shared by the actors tests: a recording OutboundSink, a temporary
// directory, frame decoding and small job / inventory fixtures.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/outbound.hpp"
#include "protocol/envelope.hpp"
#include "support/temp_dir.hpp"
#include "support/volcano_yaml.hpp"

namespace gantry::actors::testing {

using support::TempDir;

// Records every frame the actors hand out; `watch`, when set, sees each one
// as it is handed out (what else is true at that moment).
class RecordingSink final : public OutboundSink {
 public:
  void send(OutboundFrame frame) override {
    std::lock_guard lock(mutex_);
    if (watch) watch(frame);
    frames_.push_back(std::move(frame));
  }
  void send_batch(std::vector<OutboundFrame> frames) override {
    std::lock_guard lock(mutex_);
    for (auto& frame : frames) {
      if (watch) watch(frame);
      frames_.push_back(std::move(frame));
    }
  }
  std::function<void(const OutboundFrame&)> watch;
  // Returns and forgets what was sent so far.
  std::vector<OutboundFrame> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(frames_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<OutboundFrame> frames_;
};

inline protocol::MessageType type_of(const std::string& frame) {
  protocol::DecodeError error;
  const auto envelope = protocol::decode_envelope(frame, error);
  if (!envelope) throw std::runtime_error("undecodable frame: " + error.message);
  return envelope->type;
}

template <class T>
T decode_as(const std::string& frame, std::uint64_t* seq = nullptr) {
  protocol::DecodeError error;
  const auto envelope = protocol::decode_envelope(frame, error);
  if (!envelope) throw std::runtime_error("undecodable frame: " + error.message);
  if (seq) *seq = envelope->seq;
  auto message = protocol::decode_payload<T>(*envelope, error);
  if (!message) throw std::runtime_error(error.code + ": " + error.message);
  return *message;
}

// Frames of type T among `frames`, with their peers.
template <class T>
std::vector<std::pair<std::string, T>> frames_of(const std::vector<OutboundFrame>& frames) {
  std::vector<std::pair<std::string, T>> out;
  for (const OutboundFrame& frame : frames) {
    if (type_of(frame.frame) == protocol::MessageTypeOf<T>::value) {
      out.emplace_back(frame.peer, decode_as<T>(frame.frame));
    }
  }
  return out;
}

// A one-task Volcano Job: `replicas` replicas of 1 CPU, 1Gi and `gpus` GPUs.
inline std::string job_yaml(const std::string& name, int replicas, int gpus,
                            const std::string& queue = "default") {
  support::VolcanoJob job;
  job.name = name;
  job.queue = queue;
  job.min_available = replicas;
  job.task = "worker";
  job.replicas = replicas;
  job.requests = "cpu: \"1\", memory: 1Gi, nvidia.com/gpu: " + std::to_string(gpus);
  return support::volcano_job_yaml(job);
}

// The same job, which may be split across clusters (gantry.io/split: allowed).
inline std::string split_job_yaml(const std::string& name, int replicas, int gpus) {
  std::string yaml = job_yaml(name, replicas, gpus);
  const std::string metadata = "  name: " + name + "\n";
  yaml.insert(yaml.find(metadata) + metadata.size(), "  annotations: {gantry.io/split: allowed}\n");
  return yaml;
}

// A cluster of `nodes` nodes with 16 CPUs, 128Gi and `gpus_per_node` GPUs each.
inline protocol::UsageReport usage_report(const std::string& cluster, int nodes,
                                          int gpus_per_node) {
  protocol::UsageReport report;
  report.cluster = cluster;
  for (int i = 0; i < nodes; ++i) {
    protocol::NodeUsage node;
    node.name = cluster + "-node-" + std::to_string(i);
    node.allocatable = {{"cpu", 16'000}, {"memory", 128LL * 1024 * 1024 * 1024 * 1000}};
    if (gpus_per_node > 0) {
      node.allocatable["nvidia.com/gpu"] = gpus_per_node * 1000;
      node.labels["nvidia.com/gpu.product"] = "A100";
      node.gpu_model = "A100";
    }
    report.nodes.push_back(node);
  }
  return report;
}

}  // namespace gantry::actors::testing
