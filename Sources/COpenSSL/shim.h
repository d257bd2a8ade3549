/*
 * The slice of OpenSSL 3 (libcrypto) the package uses: loading a PEM private key and signing with
 * RSASSA-PKCS1-v1_5 / SHA-256 (RS256) through the EVP interface.
 *
 * Everything here is a plain function call; the wrappers exist only where the OpenSSL name is a macro
 * (which Swift cannot import) or where a fixed-width signature is easier to call from Swift.
 */
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stddef.h>

/* Makes every TLS connection made from `ctx` (an `SSL_CTX *`) offer exactly one ALPN protocol, h2 (RFC 7301; RFC 9113
   §3.2). Returns 0 on success. */
static inline int copenssl_ctx_offer_h2_only(void *ctx) {
    static const unsigned char protocols[] = {2, 'h', '2'};
    return SSL_CTX_set_alpn_protos((SSL_CTX *)ctx, protocols, sizeof protocols);
}

/* OPENSSL_free is a macro around CRYPTO_free. */
static inline void copenssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

/* EVP_PKEY_RSA is an integer macro (NID_rsaEncryption); exposed as a function so its meaning is explicit. */
static inline int copenssl_pkey_is_rsa(const EVP_PKEY *key) {
    return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA;
}

/*
 * Reads one private key (PKCS#8 "BEGIN PRIVATE KEY" or PKCS#1 "BEGIN RSA PRIVATE KEY", unencrypted) from
 * `length` bytes of PEM text. Returns NULL on failure; the reason is on OpenSSL's error queue. The caller
 * frees the key with EVP_PKEY_free. A NULL passphrase callback with an empty passphrase makes an
 * encrypted key fail instead of prompting on the terminal.
 */
static inline EVP_PKEY *copenssl_read_private_key(const void *pem, int length) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    if (bio == NULL) {
        return NULL;
    }
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *)"");
    BIO_free(bio);
    return key;
}

/*
 * Signs `length` bytes of `data` with `key` using SHA-256 and the key's default padding (PKCS#1 v1.5 for
 * RSA: RS256). On entry `*signature_length` is the capacity of `signature`; on success it is the
 * signature's length. With `signature == NULL` only the required length is stored. Returns 1 on success,
 * 0 on failure (reason on OpenSSL's error queue).
 */
static inline int copenssl_sign_sha256(EVP_PKEY *key, const void *data, size_t length, unsigned char *signature,
                                       size_t *signature_length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) {
        return 0;
    }
    int ok = EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1 &&
             EVP_DigestSign(context, signature, signature_length, (const unsigned char *)data, length) == 1;
    EVP_MD_CTX_free(context);
    return ok ? 1 : 0;
}

#endif /* COPENSSL_SHIM_H */
