#include "CPrefsCurl.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    prefs_http_response *response;
    size_t capacity;
    size_t limit;
} transfer;

static size_t receive(char *data, size_t size, size_t count, void *context) {
    transfer *t = context;
    size_t n = size * count;
    prefs_http_response *r = t->response;
    if (n > t->limit - r->body_length) {
        r->over_limit = 1;
        return 0;  // ends the transfer (CURLE_WRITE_ERROR)
    }
    if (r->body_length + n > t->capacity) {
        size_t capacity = t->capacity ? t->capacity : 16384;
        while (capacity < r->body_length + n) capacity *= 2;
        if (capacity > t->limit) capacity = t->limit;
        unsigned char *grown = realloc(r->body, capacity);
        if (!grown) return 0;
        r->body = grown;
        t->capacity = capacity;
    }
    memcpy(r->body + r->body_length, data, n);
    r->body_length += n;
    return n;
}

static int progress(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal;
    (void)ultotal;
    (void)ulnow;
    transfer *t = context;
    if (dlnow > (curl_off_t)t->limit) {
        t->response->over_limit = 2;
        return 1;  // ends the transfer (CURLE_ABORTED_BY_CALLBACK)
    }
    return 0;
}

static char *copy_header(CURL *curl, const char *name) {
    struct curl_header *header = NULL;
    if (curl_easy_header(curl, name, 0, CURLH_HEADER, -1, &header) != CURLHE_OK || !header) return NULL;
    return strdup(header->value);
}

int prefs_http_get(
    const char *url, const char *const *headers, size_t header_count, long timeout_ms, size_t limit,
    prefs_http_response *response) {
    memset(response, 0, sizeof *response);
    response->content_length = -1;
    CURL *curl = curl_easy_init();
    if (!curl) return -1;
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) list = curl_slist_append(list, headers[i]);
    transfer t = {response, 0, limit};
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "prefs-http-get");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)limit);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, receive);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, response->error);
    CURLcode code = curl_easy_perform(curl);
    curl_off_t length = -1;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (length < 0) {
        char *announced = copy_header(curl, "Content-Length");
        if (announced) length = strtoll(announced, NULL, 10);
        free(announced);
    }
    response->content_length = length;
    if (code == CURLE_FILESIZE_EXCEEDED) response->over_limit = 3;
    if (response->over_limit) {
        free(response->body);
        response->body = NULL;
        response->body_length = 0;
    } else if (code != CURLE_OK) {
        response->curl_code = (int)code;
        if (!response->error[0]) strncpy(response->error, curl_easy_strerror(code), sizeof response->error - 1);
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
    response->etag = copy_header(curl, "ETag");
    response->last_modified = copy_header(curl, "Last-Modified");
    response->content_encoding = copy_header(curl, "Content-Encoding");
    char *location = NULL;
    if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) response->redirect_url = strdup(location);
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return 0;
}

void prefs_http_response_free(prefs_http_response *response) {
    free(response->etag);
    free(response->last_modified);
    free(response->content_encoding);
    free(response->redirect_url);
    free(response->body);
    memset(response, 0, sizeof *response);
}
