#include "support/curve_socket.hpp"

#include <stdexcept>

namespace gantry::support {
namespace {

void require_z85(const std::string& key, const char* what) {
  if (!is_z85_key(key)) {
    throw std::invalid_argument(std::string(what) + " is not a 40-character Z85 key");
  }
}

}  // namespace

void make_curve_client(zmq::socket_t& socket, const CurveClientKeys& keys) {
  require_z85(keys.server_public_key, "the server's public key");
  require_z85(keys.own.public_key, "the client's public key");
  require_z85(keys.own.secret_key, "the client's secret key");
  socket.set(zmq::sockopt::curve_serverkey, keys.server_public_key);
  socket.set(zmq::sockopt::curve_publickey, keys.own.public_key);
  socket.set(zmq::sockopt::curve_secretkey, keys.own.secret_key);
}

void make_curve_server(zmq::socket_t& socket, const CurveKeyPair& own) {
  require_z85(own.secret_key, "the server's secret key");
  socket.set(zmq::sockopt::curve_server, 1);
  socket.set(zmq::sockopt::curve_secretkey, own.secret_key);
  socket.set(zmq::sockopt::zap_domain, curve_zap_domain);
}

}  // namespace gantry::support
