// gantryctl get clusters: the table, the wide table and the JSON array; and
// the GPU and OCM score sections of describe cluster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/messages.hpp"

namespace gantry::console {

// As kubectl shows a node: "Ready" or "NotReady", with ",SchedulingDisabled"
// when cordoned (no new placements); the agent's reason in parentheses when
// it said why it is not ready: "NotReady(syncing)"; ",SummaryFit" after
// "Ready" when the hub knows only a summary of its nodes' fit (fit_note, e.g.
// a Karmada Cluster without GPU resource models): "Ready,SummaryFit".
std::string cluster_status(const protocol::ClusterInfo& cluster);

// NAME STATUS NODES GPU(alloc/cap) CPU MEMORY; the last three as allocated/capacity.
std::string render_clusters_table(const std::vector<protocol::ClusterInfo>& clusters);
// The same, then what the agents observe: GPU-UTIL (mean %), GPU-MEM
// (used/total), IDLE-GPUS, each "-" while no GPU reports, and the six OCM
// scores CPU-NODE CPU-CLUS MEM-NODE MEM-CLUS GPU-NODE GPU-CLUS, "-" while the
// agent sent none; then FIT: "per-node", or the fit_note saying why the fit is
// only a summary ("no node models: summary fit").
std::string render_clusters_wide_table(const std::vector<protocol::ClusterInfo>& clusters);
std::string render_clusters_json(const std::vector<protocol::ClusterInfo>& clusters);

// describe cluster: "GPUs:" with a REPORTING UTILIZATION MEMORY IDLE row (or
// "<none>" while no GPU reports), then "OCM Scores:" with the six scores and
// VALID-UNTIL (or "<none>").
std::string render_cluster_gpu_section(const protocol::ClusterInfo& cluster);
std::string render_cluster_ocm_section(const protocol::ClusterInfo& cluster);

// Bytes in the largest binary unit they reach, one decimal below ten units:
// 12884901888 -> "12Gi", 1610612736 -> "1.5Gi", 512 -> "512". NVML's memory
// figures are not round, so this approximates where hub::format_quantity is exact.
std::string format_approximate_bytes(std::int64_t bytes);

}  // namespace gantry::console
