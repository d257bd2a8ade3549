/*
 * Typed wrappers around libcurl for Swift.
 *
 * Swift cannot call C variadic functions, so curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are
 * wrapped once per argument type. CURLVERSION_NOW is a macro alias and does not import, so curl_version_info is wrapped too.
 * ccurl_global_init performs the process-wide initialisation (see its comment); call it exactly once.
 */
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

/* glibc only declares RTLD_DEFAULT under _GNU_SOURCE; its value there is the null handle. */
#ifndef RTLD_DEFAULT
#define RTLD_DEFAULT ((void *)0)
#endif

/* From <openssl/crypto.h> (OpenSSL 1.1.1 and later); repeated here so no OpenSSL headers are needed. */
#ifndef OPENSSL_INIT_NO_ATEXIT
#define OPENSSL_INIT_NO_ATEXIT 0x00080000L
#endif

/* ---- the name of a transfer thread (shown by gdb and /proc/PID/task/TID/comm) ---- */

#if defined(__linux__)
#include <pthread.h>
/* glibc declares pthread_setname_np only under _GNU_SOURCE; the symbol is always there. */
extern int pthread_setname_np(pthread_t thread, const char *name);
#endif

/* Names the calling thread; Linux keeps the first 15 bytes. */
static inline void ccurl_set_thread_name(const char *name) {
#if defined(__linux__)
    (void)pthread_setname_np(pthread_self(), name);
#else
    (void)name;
#endif
}

/* ---- curl_easy_setopt, one wrapper per argument type ---- */

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_WRITEFUNCTION: size_t (char *ptr, size_t size, size_t nmemb, void *userdata) */
static inline CURLcode ccurl_easy_setopt_write_callback(CURL *handle, CURLoption option,
                                                        curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/* CURLOPT_HEADERFUNCTION: same prototype as the write callback, called once per complete header line. */
static inline CURLcode ccurl_easy_setopt_header_callback(CURL *handle, CURLoption option,
                                                         curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/* CURLOPT_XFERINFOFUNCTION: int (void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                  curl_off_t ultotal, curl_off_t ulnow); non-zero aborts the transfer. */
static inline CURLcode ccurl_easy_setopt_xferinfo_callback(CURL *handle, CURLoption option,
                                                           curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/* CURLOPT_SSL_CTX_FUNCTION: CURLcode (CURL *curl, void *ssl_ctx, void *userptr), called with the TLS library's
   context (an OpenSSL SSL_CTX *) before each handshake. */
static inline CURLcode ccurl_easy_setopt_ssl_ctx_callback(CURL *handle, CURLoption option,
                                                          curl_ssl_ctx_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/* CURLOPT_READFUNCTION: size_t (char *buffer, size_t size, size_t nitems, void *userdata); the callback returns
   the bytes it wrote, 0 for end of body, or CCURL_READFUNC_PAUSE. */
static inline CURLcode ccurl_easy_setopt_read_callback(CURL *handle, CURLoption option,
                                                       curl_read_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/* ---- pause codes ---- */

/* CURL_READFUNC_PAUSE, CURL_WRITEFUNC_PAUSE and the curl_easy_pause bitmasks are #define expressions, which Swift
   does not import reliably; these enum constants carry the same values (curl_easy_pause(3)). */
enum {
    CCURL_READFUNC_PAUSE = CURL_READFUNC_PAUSE,
    CCURL_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE,
    CCURL_PAUSE_RECV = CURLPAUSE_RECV,
    CCURL_PAUSE_CONT = CURLPAUSE_CONT
};

/* ---- curl_easy_getinfo, one wrapper per result type ---- */

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* The returned string is owned by the handle and valid until the next transfer or cleanup. */
static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    char *result = NULL;
    CURLcode code = curl_easy_getinfo(handle, info, &result);
    *value = result;
    return code;
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* The connection's socket after a CURLOPT_CONNECT_ONLY transfer (CURLINFO_ACTIVESOCKET), or CURL_SOCKET_BAD. */
static inline curl_socket_t ccurl_easy_active_socket(CURL *handle) {
    curl_socket_t socket = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &socket) != CURLE_OK) {
        return CURL_SOCKET_BAD;
    }
    return socket;
}


/* ---- curl_multi_setopt, one wrapper per argument type ---- */

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/* ---- version and global initialisation ---- */

static inline curl_version_info_data *ccurl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

/*
 * Process-wide libcurl initialisation. Call exactly once, before any other curl call.
 *
 * Before curl_global_init it calls OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL) when libcrypto is
 * loaded (found through dlsym, so there is no link-time dependency on OpenSSL). That stops OpenSSL from
 * registering an atexit cleanup which races with threads still using curl handles while the process exits
 * (double-free crashes; swift-corelibs-foundation does the same in CFURLSessionInit).
 */
static inline CURLcode ccurl_global_init(void) {
    typedef int (*ccurl_openssl_init_crypto_fn)(uint64_t options, const void *settings);
    void *symbol = dlsym(RTLD_DEFAULT, "OPENSSL_init_crypto");
    if (symbol != NULL) {
        ccurl_openssl_init_crypto_fn init_crypto = (ccurl_openssl_init_crypto_fn)symbol;
        (void)init_crypto((uint64_t)OPENSSL_INIT_NO_ATEXIT, NULL);
    }
    return curl_global_init(CURL_GLOBAL_ALL);
}

#endif /* CCURL_SHIM_H */
