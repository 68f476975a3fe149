// Under ThreadSanitizer: a SegmentStream read on one thread and closed from another (Python's
// generator read by one thread while another closes it, or the garbage collector does), with the
// transcription's thread waiting for the reader or producing a segment at that moment.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "api/segment_stream.h"
#include "auris/error.h"

namespace auris {
namespace {

TEST(SegmentStreamConcurrency, ClosingFromAnotherThreadWhileItIsReadEndsBoth) {
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> windows = 0;
    SegmentStream stream(
        [&](const TranscribeOptions& options) {
          for (int w = 0; w < 1000; ++w) {
            ++windows;
            Segment s;
            s.id = w;
            options.on_segment(s);
            options.on_progress(w + 1.0, 1000.0);
          }
          return Transcript{};
        },
        {});
    std::atomic<int> read = 0;
    std::thread reader([&] {
      Segment s;
      try {
        for (;;) {
          const SegmentStream::Next n = stream.next(s, std::chrono::milliseconds(5));
          if (n == SegmentStream::Next::kEnd) break;
          if (n == SegmentStream::Next::kSegment) ++read;
        }
      } catch (const Error&) {  // closed, or the transcription's Cancelled at the end
      }
    });
    while (read < round) std::this_thread::yield();
    stream.close();
    reader.join();
    EXPECT_LE(windows, read + 2) << "the transcription stopped within a window of the reader";
  }
}

}  // namespace
}  // namespace auris
