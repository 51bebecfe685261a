// Certificates for the TLS tests, made with the openssl CLI: a CA, a server
// certificate for 127.0.0.1 / localhost, one for another host, a client
// certificate, and an unrelated CA with a client certificate of its own.
#pragma once

#include <filesystem>
#include <string>

namespace gantry::kube::testing {

struct TestPki {
  std::filesystem::path dir;
  std::string ca_pem;
  std::string other_ca_pem;     // signed no server here: trusting it must fail
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
  // A clientAuth certificate signed by the other CA: a server that trusts
  // only the CA must refuse it.
  std::filesystem::path other_ca_file;
  std::filesystem::path stranger_cert_file;
  std::filesystem::path stranger_key_file;
};

// Writes everything into `dir`; throws std::runtime_error with openssl's
// output when a command fails.
TestPki make_test_pki(const std::filesystem::path& dir);

// One more leaf certificate in `dir` (a make_test_pki folder): `name`.crt and
// `name`.key, with `subject` ("/CN=x", "/O=x") and the openssl extension lines
// in `extensions`, signed by `ca` ("ca" or "other-ca").
void make_test_leaf(const std::filesystem::path& dir, const std::string& name,
                    const std::string& subject, const std::string& extensions,
                    const std::string& ca = "ca");

}  // namespace gantry::kube::testing
