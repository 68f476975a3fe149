// The pull iterator behind the Python package's lazy segments: in order, nothing before the first
// read, one window ahead of the reader, closed mid-way before the next window, errors at the end,
// and equal to Transcriber::transcribe on real audio.
#include "api/segment_stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "auris/audio.h"
#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

using std::chrono::milliseconds;

// A transcription of `windows` windows of two segments each, counting the windows it started.
SegmentStream::Transcription fake_windows(int windows, std::atomic<int>* started) {
  return [=](const TranscribeOptions& options) {
    Transcript t;
    for (int w = 0; w < windows; ++w) {
      ++*started;
      for (int i = 0; i < 2; ++i) {
        Segment s;
        s.id = 2 * w + i;
        s.text = "segment " + std::to_string(s.id);
        options.on_segment(s);
        t.segments.push_back(s);
      }
      options.on_progress(w + 1.0, windows);
    }
    t.text = "all";
    return t;
  };
}

// Reads one segment, however long the stream's thread takes to give it.
SegmentStream::Next read(SegmentStream& stream, Segment& s) {
  SegmentStream::Next n;
  while ((n = stream.next(s, milliseconds(50))) == SegmentStream::Next::kWaiting) {}
  return n;
}

TEST(SegmentStream, GivesTheSegmentsInOrderThenTheTranscript) {
  std::atomic<int> started = 0;
  SegmentStream stream(fake_windows(3, &started), {});
  Segment s;
  for (int id = 0; id < 6; ++id) {
    ASSERT_EQ(read(stream, s), SegmentStream::Next::kSegment);
    EXPECT_EQ(s.id, id);
  }
  EXPECT_EQ(read(stream, s), SegmentStream::Next::kEnd);
  EXPECT_EQ(read(stream, s), SegmentStream::Next::kEnd);
  EXPECT_EQ(stream.transcript().text, "all");
  EXPECT_EQ(stream.transcript().segments.size(), 6u);
}

TEST(SegmentStream, StartsAtTheFirstReadAndStaysOneWindowAhead) {
  std::atomic<int> started = 0;
  SegmentStream stream(fake_windows(10, &started), {});
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(started, 0) << "nothing runs before the first read";
  Segment s;
  ASSERT_EQ(read(stream, s), SegmentStream::Next::kSegment);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(started, 1) << "the first window waits for its second segment to be read";
  ASSERT_EQ(read(stream, s), SegmentStream::Next::kSegment);
  ASSERT_EQ(read(stream, s), SegmentStream::Next::kSegment);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(started, 2);
}

TEST(SegmentStream, ClosingStopsBeforeTheNextWindow) {
  std::atomic<int> started = 0;
  auto stream = std::make_unique<SegmentStream>(fake_windows(1000, &started), TranscribeOptions{});
  Segment s;
  ASSERT_EQ(read(*stream, s), SegmentStream::Next::kSegment);
  stream->close();
  EXPECT_EQ(started, 1);
  EXPECT_NE(test::error_of([&] { stream->next(s, milliseconds(1)); }).find("closed"), std::string::npos);
  stream.reset();  // a second close, from the destructor
  std::atomic<int> never = 0;
  SegmentStream unread(fake_windows(3, &never), {});  // destroyed unread: nothing ever ran
  EXPECT_EQ(never, 0);
}

TEST(SegmentStream, TheTranscriptionsErrorComesAfterItsSegments) {
  SegmentStream stream(
      [](const TranscribeOptions& options) -> Transcript {
        Segment s;
        s.text = "before";
        options.on_segment(s);
        throw Error("the audio ended early");
      },
      {});
  Segment s;
  ASSERT_EQ(read(stream, s), SegmentStream::Next::kSegment);
  EXPECT_EQ(s.text, "before");
  EXPECT_EQ(test::error_of([&] { read(stream, s); }), "the audio ended early");
}

TEST(SegmentStream, EqualsTheTranscriberOnRealAudio) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  const auto model = Model::load(path);
  const std::vector<float> audio = load_audio(data + "/audio/longform/hifitts-dev-concat.flac");
  TranscribeOptions options;
  options.decoding.beam_size.reset();
  options.clip_timestamps = {0, 75};
  const Transcript expected = Transcriber(model).transcribe(audio, 16000, options);
  ASSERT_GE(expected.segments.size(), 4u);

  int progress_calls = 0;
  options.on_progress = [&](double, double) { ++progress_calls; };
  SegmentStream stream([&](const TranscribeOptions& o) { return Transcriber(model).transcribe(audio, 16000, o); },
                       options);
  Segment s;
  std::vector<Segment> streamed;
  while (read(stream, s) == SegmentStream::Next::kSegment) streamed.push_back(s);
  ASSERT_EQ(streamed.size(), expected.segments.size());
  for (size_t i = 0; i < streamed.size(); ++i) {
    EXPECT_EQ(streamed[i].tokens, expected.segments[i].tokens);
    EXPECT_EQ(streamed[i].start, expected.segments[i].start);
  }
  EXPECT_EQ(stream.transcript().text, expected.text);
  EXPECT_GE(progress_calls, 3) << "the caller's own on_progress still runs";
}

}  // namespace
}  // namespace auris
