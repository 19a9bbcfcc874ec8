// Typed wrappers for libcurl's variadic functions and macros, which Swift cannot call or import
// (SWIFT-LINUX-NOTES.md). One wrapper per argument kind; no logic beyond the call.
#ifndef PACENOTE_CCURLSHIM_H
#define PACENOTE_CCURLSHIM_H

#include <curl/curl.h>
#include <stddef.h>

/// `curl_global_init(CURL_GLOBAL_DEFAULT)`: the flags are a macro.
CURLcode pn_curl_global_init(void);

CURLcode pn_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode pn_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode pn_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode pn_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/// Sets a blob option (`CURLOPT_CAINFO_BLOB`); libcurl copies the bytes (`CURL_BLOB_COPY`).
CURLcode pn_curl_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length);

/// The signature of `CURLOPT_WRITEFUNCTION` and `CURLOPT_HEADERFUNCTION`.
typedef size_t (*pn_curl_data_callback)(char *data, size_t size, size_t count, void *context);
CURLcode pn_curl_easy_setopt_callback(CURL *handle, CURLoption option, pn_curl_data_callback callback);

CURLcode pn_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);

CURLMcode pn_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// The value of `CURLPIPE_MULTIPLEX` (a macro).
long pn_curlpipe_multiplex(void);
/// The values of the `CURL_HTTP_VERSION_*` enum members used here, as `long` for setopt.
long pn_http_version_2tls(void);
long pn_http_version_2_prior_knowledge(void);
long pn_http_version_1_1(void);

#endif
