#include "model/url_transfer.h"

#include <curl/curl.h>

#include <exception>
#include <memory>

namespace auris {

namespace {

struct Progress {
  const UrlTransfer* transfer;
  std::exception_ptr failure;  // thrown by take: kept across libcurl's C frames, rethrown after
  bool stopped = false;        // take returned false
};

size_t take_piece(char* data, size_t size, size_t count, void* user) {
  auto* p = static_cast<Progress*>(user);
  try {
    if (p->transfer->take(data, size * count)) return size * count;
  } catch (...) {
    p->failure = std::current_exception();
  }
  p->stopped = true;
  return 0;
}

int report_progress(void* user, curl_off_t total, curl_off_t done, curl_off_t, curl_off_t) {
  const auto* p = static_cast<Progress*>(user);
  const UrlTransfer& t = *p->transfer;
  if (t.progress) t.progress(t.resume_from + static_cast<long long>(done), total > 0 ? t.resume_from + total : 0);
  return 0;
}

}  // namespace

void run_transfer(const UrlTransfer& transfer) {
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!initialised) throw Error("cannot initialise libcurl");
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw Error("cannot initialise libcurl");
  Progress progress{&transfer, nullptr, false};
  char message[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl.get(), CURLOPT_URL, transfer.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, take_piece);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &progress);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, report_progress);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, &progress);
  curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, message);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_LIMIT, 1L);  // give up on a stalled transfer
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_TIME, 60L);
  if (transfer.resume_from > 0)
    curl_easy_setopt(curl.get(), CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(transfer.resume_from));
  const CURLcode rc = curl_easy_perform(curl.get());
  if (progress.failure) std::rethrow_exception(progress.failure);
  if (progress.stopped || rc == CURLE_OK) return;
  throw TransferFailed("download of " + transfer.url + " failed: " + (message[0] ? message : curl_easy_strerror(rc)),
                       rc == CURLE_RANGE_ERROR);
}

}  // namespace auris
