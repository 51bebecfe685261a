#include "agents/kube_cluster_view.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace gantry::agents {

using nlohmann::json;

namespace {

// namespace/name, or the name of a cluster-scoped object.
std::string object_key(const json& object) {
  const json& metadata = object.value("metadata", json::object());
  const std::string name = metadata.value("name", "");
  const std::string name_space = metadata.value("namespace", "");
  return name_space.empty() ? name : name_space + "/" + name;
}

std::vector<json> values_of(const std::map<std::string, json>& objects) {
  std::vector<json> values;
  values.reserve(objects.size());
  for (const auto& [key, object] : objects) values.push_back(object);
  return values;
}

int make_eventfd() {
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  return fd;
}

}  // namespace

KubeClusterView::KubeClusterView(kube::Client& client, OwnPodPredicate is_own)
    : is_own_(std::move(is_own)),
      changed_fd_(make_eventfd()),
      node_reflector_(client, kNodesPath, handlers_for(nodes_, nodes_listed_)),
      pod_reflector_(client, kPodsPath, handlers_for(pods_, pods_listed_)) {}

KubeClusterView::~KubeClusterView() {
  stop();
  ::close(changed_fd_);
}

void KubeClusterView::start() {
  node_reflector_.start();
  pod_reflector_.start();
}

void KubeClusterView::stop() {
  node_reflector_.stop();
  pod_reflector_.stop();
}

kube::Reflector::Handlers KubeClusterView::handlers_for(Objects& objects,
                                                        std::atomic<bool>& listed) {
  return {.on_list =
              [this, &objects, &listed](const std::vector<json>& items) {
                {
                  std::lock_guard lock(mutex_);
                  objects.clear();
                  for (const json& item : items) objects[object_key(item)] = item;
                  listed = true;
                }
                signal_changed();
              },
          .on_event =
              [this, &objects](const std::string& type, const json& object) {
                {
                  std::lock_guard lock(mutex_);
                  if (type == "DELETED") {
                    objects.erase(object_key(object));
                  } else {
                    objects[object_key(object)] = object;  // ADDED, MODIFIED
                  }
                }
                signal_changed();
              }};
}

void KubeClusterView::signal_changed() {
  const std::uint64_t one = 1;
  // Only EAGAIN can fail here (the counter is near overflow): it is readable then anyway.
  [[maybe_unused]] const ssize_t written = ::write(changed_fd_, &one, sizeof one);
}

void KubeClusterView::clear_changed() {
  std::uint64_t count = 0;
  // EAGAIN: nothing changed since the last clear.
  [[maybe_unused]] const ssize_t read = ::read(changed_fd_, &count, sizeof count);
}

std::vector<protocol::NodeUsage> KubeClusterView::snapshot() const {
  std::lock_guard lock(mutex_);
  return usable_nodes(values_of(nodes_), values_of(pods_), is_own_);
}

bool KubeClusterView::synced() const {
  return nodes_listed_ && pods_listed_;
}

std::uint64_t KubeClusterView::relists() const {
  return node_reflector_.relists() + pod_reflector_.relists();
}

}  // namespace gantry::agents
