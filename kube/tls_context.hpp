// The OpenSSL context for one API server: whom to trust and who we are.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "kube/cluster_access.hpp"

namespace gantry::kube {

// How errors name the PEM inputs: a kubeconfig's fields, or the files a
// command line named.
struct TlsInputNames {
  std::string ca = "CA certificate (ca_pem)";
  std::string client_cert = "client certificate";
  std::string client_key = "client key";
};

// TLS 1.2+, peer verification against access.ca_pem (or the system's CAs)
// unless insecure_skip_tls_verify, and the client certificate when given.
// Throws std::runtime_error naming the server and the bad PEM.
std::unique_ptr<boost::asio::ssl::context> make_tls_context(const ClusterAccess& access);
// The same for another kind of server (the etcd client): only access's TLS
// fields are read; errors start with `peer` and name the inputs as `names` does.
std::unique_ptr<boost::asio::ssl::context> make_tls_context(const ClusterAccess& access,
                                                            const std::string& peer,
                                                            const TlsInputNames& names);

}  // namespace gantry::kube
