#include "github_api/app_jwt.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "util/text.h"

namespace bb::github_api {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

std::string base64url_decode(const std::string& in) {
  std::string b64 = in;
  for (char& c : b64) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (b64.size() % 4) b64 += '=';
  return from_base64(b64).value_or("");
}

}  // namespace

std::string base64url(const std::string& bytes) {
  std::string out = base64(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

Result<std::string> make_app_jwt(int64_t app_id, const std::string& private_key_pem, int64_t now_unix) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())));
  std::unique_ptr<EVP_PKEY, PkeyFree> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return make_error(Errc::invalid_argument, "github-app-key is not a PEM private key");
  std::string header = base64url(R"({"alg":"RS256","typ":"JWT"})");
  nlohmann::json claims = {{"iat", now_unix - 60}, {"exp", now_unix + 540}, {"iss", std::to_string(app_id)}};
  std::string signing_input = header + "." + base64url(claims.dump());

  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  size_t len = 0;
  if (EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1)
    return make_error(Errc::internal, "cannot sign the GitHub App JWT");
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1)
    return make_error(Errc::internal, "cannot sign the GitHub App JWT");
  sig.resize(len);
  return signing_input + "." + base64url(sig);
}

Status verify_jwt(const std::string& jwt, const std::string& public_key_pem) {
  auto dot = jwt.rfind('.');
  if (dot == std::string::npos) return make_error(Errc::invalid_argument, "not a JWT");
  std::string input = jwt.substr(0, dot), sig = base64url_decode(jwt.substr(dot + 1));
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(public_key_pem.data(), static_cast<int>(public_key_pem.size())));
  std::unique_ptr<EVP_PKEY, PkeyFree> key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return make_error(Errc::invalid_argument, "not a PEM public key");
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                       reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1)
    return make_error(Errc::invalid_argument, "JWT signature does not verify");
  return {};
}

}  // namespace bb::github_api
