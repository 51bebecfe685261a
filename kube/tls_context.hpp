// The OpenSSL context for one API server: whom to trust and who we are.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>

#include "kube/cluster_access.hpp"

namespace gantry::kube {

// TLS 1.2+, peer verification against access.ca_pem (or the system's CAs)
// unless insecure_skip_tls_verify, and the client certificate when given.
// Throws std::runtime_error naming the server and the bad PEM.
std::unique_ptr<boost::asio::ssl::context> make_tls_context(const ClusterAccess& access);

}  // namespace gantry::kube
