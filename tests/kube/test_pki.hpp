// Certificates for the TLS tests, made with the openssl CLI: a CA, a server
// certificate for 127.0.0.1 / localhost, one for another host, a client
// certificate, and an unrelated CA.
#pragma once

#include <filesystem>
#include <string>

namespace gantry::kube::testing {

struct TestPki {
  std::filesystem::path dir;
  std::string ca_pem;
  std::string other_ca_pem;     // signed nothing here: trusting it must fail
  std::string client_cert_pem;  // signed by the CA, for clientAuth
  std::string client_key_pem;
  // Files for the fixture's --tls-cert / --tls-key / --client-ca.
  std::filesystem::path ca_file;
  std::filesystem::path server_cert_file;  // SANs IP:127.0.0.1, DNS:localhost
  std::filesystem::path server_key_file;
  std::filesystem::path elsewhere_cert_file;  // SAN DNS:elsewhere.test only
  std::filesystem::path elsewhere_key_file;
  std::filesystem::path client_cert_file;
  std::filesystem::path client_key_file;
};

// Writes everything into `dir`; throws std::runtime_error with openssl's
// output when a command fails.
TestPki make_test_pki(const std::filesystem::path& dir);

}  // namespace gantry::kube::testing
