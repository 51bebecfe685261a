#include "kube/tls_context.hpp"

#include <stdexcept>

namespace gantry::kube {
namespace ssl = boost::asio::ssl;

namespace {

// Runs one context setter, turning its error into one that says which input was bad.
template <class Setter>
void load(const std::string& peer, const std::string& what, Setter&& setter) {
  boost::system::error_code error;
  setter(error);
  if (error) throw std::runtime_error(peer + ": cannot use the " + what + ": " + error.message());
}

}  // namespace

std::unique_ptr<ssl::context> make_tls_context(const ClusterAccess& access) {
  return make_tls_context(access, "kube server " + access.server, TlsInputNames{});
}

std::unique_ptr<ssl::context> make_tls_context(const ClusterAccess& access, const std::string& peer,
                                               const TlsInputNames& names) {
  auto context = std::make_unique<ssl::context>(ssl::context::tls_client);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  if (access.insecure_skip_tls_verify) {
    context->set_verify_mode(ssl::verify_none);
  } else {
    context->set_verify_mode(ssl::verify_peer);
    if (access.ca_pem.empty()) {
      load(peer, "system's CA certificates",
           [&](auto& error) { context->set_default_verify_paths(error); });
    } else {
      load(peer, names.ca, [&](auto& error) {
        context->add_certificate_authority(boost::asio::buffer(access.ca_pem), error);
      });
    }
  }
  if (!access.client_cert_pem.empty()) {
    load(peer, names.client_cert, [&](auto& error) {
      context->use_certificate_chain(boost::asio::buffer(access.client_cert_pem), error);
    });
    load(peer, names.client_key, [&](auto& error) {
      context->use_private_key(boost::asio::buffer(access.client_key_pem), ssl::context::pem,
                               error);
    });
  }
  return context;
}

}  // namespace gantry::kube
