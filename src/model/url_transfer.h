// One GET through libcurl (https, and file:// for tests), its body handed over as it arrives: the
// only network code in auris (model_download.h uses it).
#pragma once

#include <functional>
#include <string>

#include "auris/error.h"

namespace auris {

struct UrlTransfer {
  std::string url;
  // Bytes already held from an earlier, interrupted transfer: only the rest is asked for (a Range
  // request), and the counts given to progress include them.
  long long resume_from = 0;
  // Given each piece of the body; returns false to stop the transfer (then run_transfer returns
  // normally: the caller knows why it stopped). What it throws leaves run_transfer.
  std::function<bool(const char* data, size_t size)> take;
  // Bytes so far and in all (0 while unknown); may be empty.
  std::function<void(long long done, long long total)> progress;
};

// The transfer failed: no connection, an HTTP error status, a stall. range_refused: the server
// would not resume (answered a Range request with the whole body), so it must start over.
class TransferFailed : public Error {
 public:
  TransferFailed(const std::string& message, bool range_refused) : Error(message), range_refused(range_refused) {}
  bool range_refused;
};

void run_transfer(const UrlTransfer& transfer);

}  // namespace auris
