// How a client proves who it is to etcd and checks whom it talks to, as
// etcdctl's --cacert, --cert, --key and --user name them. No Boost here, so
// that the hub's options can hold it cheaply.
#pragma once

#include <string>

namespace gantry::etcd {

// TLS for https:// endpoints: PEM files, read when the client is made.
struct TlsFiles {
  std::string ca_file;    // the CA(s) that signed etcd's certificate; "": the system's CAs
  std::string cert_file;  // this client's certificate and key, for etcd's --client-cert-auth;
  std::string key_file;   // both or neither
  bool any() const { return !ca_file.empty() || !cert_file.empty() || !key_file.empty(); }
};

// etcd's own authentication (auth enabled): every request carries a token
// from /v3/auth/authenticate for this user; a token etcd no longer knows is
// replaced once and the refused request sent again.
struct Credentials {
  std::string user;  // "": no authentication
  std::string password;
};

struct Access {
  TlsFiles tls;
  Credentials auth;
};

}  // namespace gantry::etcd
