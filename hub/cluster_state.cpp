#include "hub/cluster_state.hpp"

#include <algorithm>

namespace gantry::hub {

bool labels_match(const Labels& labels, const Labels& selector) {
  for (const auto& [key, value] : selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

ClusterState::ClusterState(std::string name) : name_(std::move(name)), free_gpu_buckets_(1) {}

namespace {

// Counts the node's GPUs under its product as well (set, not add: a report may
// already carry the product resource, e.g. from an agent's own accounting).
Node make_node(const NodeSpec& spec) {
  Node node{spec.name, spec.labels, spec.allocatable, spec.allocatable - spec.allocated};
  node.taints = spec.taints;
  const auto product = spec.labels.find(std::string(kGpuProductLabel));
  if (product == spec.labels.end() || spec.allocatable.get(kGpu) <= 0) return node;
  if (!gpu_product_resource(product->second, node.gpu_product)) return node;
  node.allocatable.set(node.gpu_product, spec.allocatable.get(kGpu));
  node.free.set(node.gpu_product, node.free.get(kGpu));
  return node;
}

}  // namespace

void ClusterState::set_nodes(const std::vector<NodeSpec>& nodes) {
  nodes_.clear();
  node_by_name_.clear();
  total_allocatable_ = {};
  total_free_ = {};
  largest_node_ = {};
  tainted_nodes_ = 0;
  nodes_.reserve(nodes.size());
  for (const NodeSpec& spec : nodes) {
    Node node = make_node(spec);
    total_allocatable_ += node.allocatable;
    total_free_ += node.free;
    largest_node_ = largest_node_.max_with(node.allocatable);
    if (!node.taints.empty()) ++tainted_nodes_;
    node_by_name_[node.name] = static_cast<NodeIndex>(nodes_.size());
    nodes_.push_back(std::move(node));
  }
  free_gpu_buckets_.assign(static_cast<std::size_t>(std::max<std::int64_t>(0, max_node_gpus())) + 1,
                           {});
  position_in_bucket_.assign(nodes_.size(), 0);
  held_for_.assign(nodes_.size(), kNoOwner);
  held_nodes_ = 0;
  planned_ends_.resize(nodes_.size());
  for (NodeIndex i = 0; i < nodes_.size(); ++i) bucket_insert(i);
  ++report_generation_;
}

std::optional<NodeIndex> ClusterState::find_node(const std::string& name) const {
  auto it = node_by_name_.find(name);
  if (it == node_by_name_.end()) return std::nullopt;
  return it->second;
}

ResourceVector ClusterState::held_on(NodeIndex index, const ResourceVector& request) const {
  ResourceVector held = request;
  const ResourceId product = nodes_[index].gpu_product;
  if (product != kNoResource) held.set(product, request.get(kGpu));
  return held;
}

void ClusterState::take(NodeIndex index, const ResourceVector& amount) {
  bucket_erase(index);
  nodes_[index].free -= amount;
  total_free_ -= amount;
  bucket_insert(index);
}

void ClusterState::give(NodeIndex index, const ResourceVector& amount) {
  bucket_erase(index);
  nodes_[index].free += amount;
  total_free_ += amount;
  bucket_insert(index);
}

void ClusterState::add_planned_end(NodeIndex index, std::int64_t end) {
  if (index >= planned_ends_.size()) return;  // the nodes changed since it was placed
  planned_ends_[index].push_back(end);
}

void ClusterState::remove_planned_end(NodeIndex index, std::int64_t end) {
  if (index >= planned_ends_.size()) return;
  std::vector<std::int64_t>& ends = planned_ends_[index];
  const auto it = std::find(ends.begin(), ends.end(), end);
  if (it == ends.end()) return;
  *it = ends.back();
  ends.pop_back();
}

std::int64_t ClusterState::drain_time(NodeIndex index) const {
  if (index >= planned_ends_.size()) return kIdleNode;
  std::int64_t latest = kIdleNode;
  for (const std::int64_t end : planned_ends_[index]) latest = std::max(latest, end);
  return latest;
}

std::size_t ClusterState::count_nodes_with_at_least(std::int64_t gpus) const {
  std::size_t count = 0;
  for (std::size_t b = static_cast<std::size_t>(std::max<std::int64_t>(0, gpus));
       b < free_gpu_buckets_.size(); ++b)
    count += free_gpu_buckets_[b].size();
  return count;
}

void ClusterState::hold_node(NodeIndex index, std::uint32_t owner) {
  if (held_for_[index] == kNoOwner) ++held_nodes_;
  held_for_[index] = owner;
}

void ClusterState::clear_holds() {
  if (held_nodes_ == 0) return;
  std::fill(held_for_.begin(), held_for_.end(), kNoOwner);
  held_nodes_ = 0;
}

// Free GPUs can exceed the largest node's allocatable only transiently (never in
// practice) and go negative when an agent reports more allocated than the hub
// expected; both are clamped so every node stays indexed.
std::size_t ClusterState::bucket_of(const Node& node) const {
  const std::int64_t gpus = std::clamp<std::int64_t>(
      node.free.gpus(), 0, static_cast<std::int64_t>(free_gpu_buckets_.size()) - 1);
  return static_cast<std::size_t>(gpus);
}

void ClusterState::bucket_insert(NodeIndex index) {
  auto& bucket = free_gpu_buckets_[bucket_of(nodes_[index])];
  position_in_bucket_[index] = static_cast<std::uint32_t>(bucket.size());
  bucket.push_back(index);
}

void ClusterState::bucket_erase(NodeIndex index) {
  auto& bucket = free_gpu_buckets_[bucket_of(nodes_[index])];
  const std::uint32_t position = position_in_bucket_[index];
  const NodeIndex moved = bucket.back();
  bucket[position] = moved;
  position_in_bucket_[moved] = position;
  bucket.pop_back();
}

}  // namespace gantry::hub
