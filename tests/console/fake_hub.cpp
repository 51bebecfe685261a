#include "tests/console/fake_hub.hpp"

#include "support/zap_handler.hpp"

namespace gantry::console::testing {

FakeHub::FakeHub(Handler handler, Transport transport)
    : handler_(std::move(handler)),
      transport_(transport),
      keys_(support::generate_curve_keypair("fake-hub")) {
  router_.set(zmq::sockopt::linger, 0);
  if (transport_ == Transport::kCurveRefusingEveryKey) zap_ = support::bind_zap_handler(context_);
  if (transport_ != Transport::kPlaintext) support::make_curve_server(router_, keys_);
  router_.bind("tcp://127.0.0.1:*");
  endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  // The I/O thread owns the ROUTER; the destructor wakes it through this pair.
  const std::string stop_endpoint = "inproc://fake-hub-stop";
  stop_receiver_.bind(stop_endpoint);
  stop_sender_.connect(stop_endpoint);
  thread_ = std::thread([this] { serve(); });
}

FakeHub::~FakeHub() {
  stop_sender_.send(zmq::str_buffer("stop"), zmq::send_flags::none);
  thread_.join();
}

std::optional<support::CurveClientKeys> FakeHub::client_keys() const {
  if (transport_ == Transport::kPlaintext) return std::nullopt;
  return support::CurveClientKeys{keys_.public_key, support::generate_curve_keypair("client")};
}

std::vector<protocol::Envelope> FakeHub::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void FakeHub::serve() {
  for (;;) {
    std::vector<zmq::pollitem_t> items{{router_.handle(), 0, ZMQ_POLLIN, 0},
                                       {stop_receiver_.handle(), 0, ZMQ_POLLIN, 0}};
    if (zap_) items.push_back({zap_->handle(), 0, ZMQ_POLLIN, 0});
    zmq::poll(items, std::chrono::milliseconds(-1));
    if (items[1].revents & ZMQ_POLLIN) return;
    if (items[0].revents & ZMQ_POLLIN) answer_one();
    if (items.size() > 2 && (items[2].revents & ZMQ_POLLIN)) {
      support::answer_one_zap_request(*zap_, [](const support::ZapRequest&) {
        return support::ZapVerdict{false, "", "not in access.yaml"};
      });
    }
  }
}

void FakeHub::answer_one() {
  zmq::message_t identity;
  zmq::message_t request;
  (void)router_.recv(identity, zmq::recv_flags::none);
  do {
    (void)router_.recv(request, zmq::recv_flags::none);
  } while (request.more());
  const std::string frame = request.to_string();
  {
    protocol::DecodeError error;
    const auto envelope = protocol::decode_envelope(frame, error);
    std::lock_guard lock(mutex_);
    requests_.push_back(envelope ? *envelope : protocol::Envelope{});
  }
  const std::string peer = identity.to_string();
  for (const std::string& reply : handler_(frame)) {
    router_.send(zmq::buffer(peer), zmq::send_flags::sndmore);
    router_.send(zmq::buffer(reply), zmq::send_flags::none);
  }
}

}  // namespace gantry::console::testing
