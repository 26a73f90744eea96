#ifndef CPREFS_CURL_H
#define CPREFS_CURL_H

#include <stddef.h>

/// What one GET produced. Strings and the body are malloc'd (NULL when absent); free them
/// with prefs_http_response_free.
typedef struct {
    long status;
    char *etag;
    char *last_modified;
    char *content_encoding;
    /// For a 3xx: where it points (absolute), else NULL.
    char *redirect_url;
    unsigned char *body;
    size_t body_length;
    /// 0, or why the transfer stopped at the limit: 1 the body (decoded) passed it, 2 the
    /// bytes received (before decoding) passed it, 3 Content-Length announced more.
    int over_limit;
    long long content_length;
    /// 0 or libcurl's error code, with its message.
    int curl_code;
    char error[256];
} prefs_http_response;

/// GET `url` with `header_count` "Name: value" lines, giving up after `timeout_ms`. The body
/// is decoded (gzip, deflate, br, zstd) as it arrives and the transfer stops as soon as the
/// decoded body or the bytes received pass `limit`: memory stays within `limit`. Redirects
/// are not followed (the caller decides). Returns 0, or -1 when libcurl cannot start.
int prefs_http_get(
    const char *url, const char *const *headers, size_t header_count, long timeout_ms, size_t limit,
    prefs_http_response *response);

void prefs_http_response_free(prefs_http_response *response);

#endif
