#include "CCurlShim.h"

CURLcode pn_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

CURLcode pn_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pn_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pn_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pn_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pn_curl_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob;
    blob.data = (void *)data;
    blob.len = length;
    blob.flags = CURL_BLOB_COPY;
    return curl_easy_setopt(handle, option, &blob);
}

CURLcode pn_curl_easy_setopt_callback(CURL *handle, CURLoption option, pn_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode pn_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLMcode pn_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

long pn_curlpipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }
long pn_http_version_2tls(void) { return CURL_HTTP_VERSION_2TLS; }
long pn_http_version_2_prior_knowledge(void) { return CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE; }
long pn_http_version_1_1(void) { return CURL_HTTP_VERSION_1_1; }
