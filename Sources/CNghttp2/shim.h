/*
 * libnghttp2 (the HTTP/2 framing library libcurl itself uses) for the gRPC channel's own HTTP/2 layer.
 *
 * libcurl 7.88 cannot carry a gRPC call that the server ends while the client still sends (a Listen stream):
 * it completes an HTTP/2 transfer only when the stream is closed in both directions, so trailers that end the
 * server's half are never reported (curl/lib/http2.c, on_stream_close). The gRPC channel therefore speaks
 * HTTP/2 itself with nghttp2, over a connection libcurl sets up (CURLOPT_CONNECT_ONLY: TCP, proxy tunnel, TLS).
 */
#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>
#include <stdint.h>

/* The PING frame's opaque data, as 8 bytes in a 64-bit integer (nghttp2_ping.opaque_data). */
static inline uint64_t cnghttp2_ping_payload(const nghttp2_frame *frame) {
    uint64_t value = 0;
    for (int index = 0; index < 8; index++) {
        value = (value << 8) | frame->ping.opaque_data[index];
    }
    return value;
}

#endif /* CNGHTTP2_SHIM_H */
