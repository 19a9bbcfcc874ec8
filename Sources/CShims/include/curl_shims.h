// Typed wrappers for libcurl's variadic functions and macros, which Swift cannot call or import
// (SWIFT-LINUX-NOTES.md). One wrapper per argument kind; no logic beyond the call.
#ifndef PACENOTE_CURL_SHIMS_H
#define PACENOTE_CURL_SHIMS_H

#include <curl/curl.h>
#include <stddef.h>

/// `curl_global_init(CURL_GLOBAL_DEFAULT)`: the flags are a macro.
static inline CURLcode pn_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

static inline CURLcode pn_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pn_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pn_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pn_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets a blob option (`CURLOPT_CAINFO_BLOB`); libcurl copies the bytes (`CURL_BLOB_COPY`).
static inline CURLcode pn_curl_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob;
    blob.data = (void *)data;
    blob.len = length;
    blob.flags = CURL_BLOB_COPY;
    return curl_easy_setopt(handle, option, &blob);
}

/// The signature of `CURLOPT_WRITEFUNCTION` and `CURLOPT_HEADERFUNCTION`.
typedef size_t (*pn_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode pn_curl_easy_setopt_callback(CURL *handle, CURLoption option, pn_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode pn_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode pn_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// The value of `CURLPIPE_MULTIPLEX` (a macro).
static inline long pn_curlpipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }
/// The values of the `CURL_HTTP_VERSION_*` enum members used here, as `long` for setopt.
static inline long pn_http_version_2tls(void) { return CURL_HTTP_VERSION_2TLS; }
static inline long pn_http_version_2_prior_knowledge(void) { return CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE; }
static inline long pn_http_version_1_1(void) { return CURL_HTTP_VERSION_1_1; }

#endif
