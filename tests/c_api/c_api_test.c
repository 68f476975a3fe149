/* The C API from a C program (compiled as C99, linked as C): load a model, transcribe a file and
 * samples, read segments and words, and the failures a caller meets: missing model or audio, bad
 * options, cancelling from a callback; download from a stand-in hub. Usage: c_api_test MODEL AUDIO
 * (jfk.flac); exits 77 (skipped) when either is absent. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "auris/auris.h"

static int failures = 0;

#define CHECK(condition)                                                      \
  do {                                                                        \
    if (!(condition)) {                                                       \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

static int exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static int cancel_at_first_segment(const auris_segment_view* segment, void* user_data) {
  int* calls = (int*)user_data;
  ++*calls;
  CHECK(segment->text != NULL && segment->end >= segment->start);
  return 1;
}

static int cancel_at_first_progress(double done_seconds, double total_seconds, void* user_data) {
  int* calls = (int*)user_data;
  ++*calls;
  CHECK(done_seconds > 0 && done_seconds <= total_seconds);
  return 1;
}

static void transcribes_the_file(const auris_model* model, const char* audio) {
  auris_transcribe_options options;
  auris_result* result = NULL;
  auris_segment_view segment;
  auris_status status;
  auris_transcribe_options_init(&options);
  status = auris_transcribe_file(model, audio, &options, &result);
  if (status != AURIS_OK) {
    fprintf(stderr, "transcription failed (%s): %s\n", auris_status_name(status), auris_last_error());
    ++failures;
    return;
  }
  printf("text:%s\n", auris_result_text(result));
  CHECK(strstr(auris_result_text(result), "ask not what your country can do for you") != NULL);
  CHECK(strcmp(auris_result_language(result), "en") == 0);
  CHECK(auris_result_duration(result) > 10.9 && auris_result_duration(result) < 11.1);
  CHECK(strcmp(auris_last_error(), "") == 0);
  CHECK(auris_result_segment_count(result) >= 1);
  CHECK(auris_result_segment(result, 0, &segment) == AURIS_OK);
  CHECK(segment.id == 0 && segment.start >= 0 && segment.end > segment.start && segment.text[0] != '\0');
  CHECK(segment.avg_logprob < 0 && segment.no_speech_prob >= 0 && segment.no_speech_prob <= 1);
  CHECK(segment.word_count == 0 && segment.words == NULL);
  CHECK(auris_result_segment(result, auris_result_segment_count(result), &segment) == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "past the last") != NULL);
  auris_result_free(result);
}

static void gives_words(const auris_model* model, const char* audio) {
  auris_transcribe_options options;
  auris_result* result = NULL;
  auris_segment_view segment;
  size_t i, words = 0;
  auris_transcribe_options_init(&options);
  options.beam_size = 0; /* greedy: quicker */
  options.word_timestamps = 1;
  CHECK(auris_transcribe_file(model, audio, &options, &result) == AURIS_OK);
  for (i = 0; i < auris_result_segment_count(result); ++i) {
    size_t w;
    CHECK(auris_result_segment(result, i, &segment) == AURIS_OK);
    for (w = 0; w < segment.word_count; ++w) {
      const auris_word* word = &segment.words[w];
      CHECK(word->start >= segment.start - 0.01 && word->end <= segment.end + 0.01 && word->start <= word->end);
      CHECK(word->probability >= 0 && word->probability <= 1);
      if (strcmp(word->word, " country") == 0) ++words;
    }
  }
  CHECK(words == 2); /* "ask not what your country can do for you, ask what you can do for your country" */
  auris_result_free(result);
}

static size_t occurrences(const char* text, const char* word) {
  size_t n = 0;
  for (const char* at = strstr(text, word); at; at = strstr(at + 1, word)) ++n;
  return n;
}

static void takes_faster_whisper_options(const auris_model* model, const char* audio) {
  auris_transcribe_options options;
  auris_result* result = NULL;
  auris_transcribe_options_init(&options);
  CHECK(options.language_detection_segments == 1 && options.language_detection_threshold == 0.5);
  CHECK(options.repetition_penalty == 1.0 && options.no_repeat_ngram_size == 0 && options.hotwords == NULL);
  options.beam_size = 0;
  /* jfk says "country" twice; no token may come twice in a window's text. */
  options.no_repeat_ngram_size = 1;
  CHECK(auris_transcribe_file(model, audio, &options, &result) == AURIS_OK);
  CHECK(occurrences(auris_result_text(result), " country") == 1);
  auris_result_free(result);
  options.no_repeat_ngram_size = 0;
  options.hotwords = "Kennedy";
  options.repetition_penalty = 1.1;
  CHECK(auris_transcribe_file(model, audio, &options, &result) == AURIS_OK);
  CHECK(strstr(auris_result_text(result), "what you can do for your country") != NULL);
  auris_result_free(result);

  /* Out of range: refused, with the option's name, before the audio is read. */
  auris_transcribe_options_init(&options);
  options.language_detection_segments = 0;
  CHECK(auris_transcribe_file(model, "/nonexistent/speech.flac", &options, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "language_detection_segments") != NULL);
  auris_transcribe_options_init(&options);
  options.language_detection_threshold = 1.5;
  CHECK(auris_transcribe_file(model, "/nonexistent/speech.flac", &options, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "language_detection_threshold") != NULL);
  auris_transcribe_options_init(&options);
  options.repetition_penalty = 0;
  CHECK(auris_transcribe_file(model, "/nonexistent/speech.flac", &options, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "repetition_penalty") != NULL);
  auris_transcribe_options_init(&options);
  options.no_repeat_ngram_size = -1;
  CHECK(auris_transcribe_file(model, "/nonexistent/speech.flac", &options, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "no_repeat_ngram_size") != NULL);
  auris_transcribe_options_init(&options);
  options.hotwords = "\xff\xfe";
  CHECK(auris_transcribe_file(model, "/nonexistent/speech.flac", &options, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(result == NULL && strstr(auris_last_error(), "hotwords is not valid UTF-8") != NULL);
}

static void reports_failures(const auris_model* model, const char* audio) {
  auris_transcribe_options options;
  auris_result* result = (auris_result*)&options; /* must be set to NULL on failure */
  auris_status status;
  float second[16000];
  memset(second, 0, sizeof second);

  status = auris_transcribe_file(model, "/nonexistent/speech.flac", NULL, &result);
  CHECK(status == AURIS_AUDIO_ERROR && result == NULL);
  CHECK(strstr(auris_last_error(), "/nonexistent/speech.flac") != NULL);
  printf("a missing file: %s: %s\n", auris_status_name(status), auris_last_error());

  CHECK(auris_model_load("/nonexistent/model", NULL, NULL, &status) == NULL && status == AURIS_MODEL_ERROR);
  CHECK(strstr(auris_last_error(), "does not exist") != NULL);
  CHECK(auris_model_load("tiny.en", "float64", NULL, &status) == NULL && status == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "float32") != NULL);
  {
    /* A 2-MB name was an internal error, echoed whole in its message. */
    const size_t size = (size_t)1 << 21;
    char* long_name = malloc(size);
    CHECK(long_name != NULL);
    memset(long_name, 'a', size - 1);
    long_name[size - 1] = '\0';
    CHECK(auris_model_load(long_name, NULL, NULL, &status) == NULL && status == AURIS_MODEL_ERROR);
    CHECK(strlen(auris_last_error()) < 1000);
    free(long_name);
  }

  /* Options are checked before the audio is read. */
  auris_transcribe_options_init(&options);
  options.language = "klingon";
  CHECK(auris_transcribe_file(model, "/nonexistent/speech.flac", &options, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "klingon") != NULL);
  auris_transcribe_options_init(&options);
  options.threads = -1;
  CHECK(auris_transcribe_file(model, audio, &options, &result) == AURIS_INVALID_ARGUMENT);
  options.threads = 100000; /* it crashed inside OpenMP */
  CHECK(auris_transcribe_file(model, audio, &options, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(auris_transcribe_file(NULL, audio, NULL, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(auris_transcribe_file(model, audio, NULL, NULL) == AURIS_INVALID_ARGUMENT);

  CHECK(auris_transcribe_pcm(model, second, 16000, 44100, NULL, &result) == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "16000") != NULL);
  CHECK(auris_transcribe_pcm(model, second, 0, 16000, NULL, &result) == AURIS_AUDIO_ERROR);
  CHECK(auris_transcribe_pcm(model, second, SIZE_MAX, 16000, NULL, &result) == AURIS_INVALID_ARGUMENT);
  /* One NaN made the window's spectrogram NaN, which decoded as confident words. */
  second[100] = NAN;
  CHECK(auris_transcribe_pcm(model, second, 16000, 16000, NULL, &result) == AURIS_AUDIO_ERROR);
  CHECK(strstr(auris_last_error(), "NaN or an infinity at sample 100") != NULL);
  second[100] = 0.0f;
  /* Digital silence: no segments, and no error. */
  CHECK(auris_transcribe_pcm(model, second, 16000, 16000, NULL, &result) == AURIS_OK);
  CHECK(auris_result_segment_count(result) == 0);
  auris_result_free(result);
}

static void cancels_from_callbacks(const auris_model* model, const char* audio) {
  auris_transcribe_options options;
  auris_result* result = NULL;
  int calls = 0;
  auris_transcribe_options_init(&options);
  options.on_segment = cancel_at_first_segment;
  options.user_data = &calls;
  CHECK(auris_transcribe_file(model, audio, &options, &result) == AURIS_CANCELLED);
  CHECK(calls == 1 && result == NULL);
  CHECK(strstr(auris_last_error(), "cancelled") != NULL);

  calls = 0;
  auris_transcribe_options_init(&options);
  options.on_progress = cancel_at_first_progress;
  options.user_data = &calls;
  CHECK(auris_transcribe_file(model, audio, &options, &result) == AURIS_CANCELLED);
  CHECK(calls == 1 && result == NULL);
}

static void write_file(const char* path, const char* content) {
  FILE* file = fopen(path, "w");
  CHECK(file != NULL);
  if (!file) return;
  fputs(content, file);
  fclose(file);
}

static void count_progress(const char* file, long long done, long long total, void* user_data) {
  int* calls = (int*)user_data;
  ++*calls;
  CHECK(strcmp(file, "ggml-silero-v6.2.0.bin") == 0 && done >= 0 && done <= total);
}

/* auris_download from a directory standing in for the Hugging Face Hub (file:// URLs): the VAD model's
 * file, and the listing it is checked against (its size and SHA-256, as `sha256sum` gives them). */
static void downloads_into_the_cache(void) {
  char root[] = "/tmp/auris-c-api-XXXXXX";
  char path[1024], hub[256], cache[256];
  int calls = 0;
  const char* dirs[] = {"hub", "hub/ggml-org", "hub/ggml-org/whisper-vad", "hub/ggml-org/whisper-vad/resolve",
                        "hub/ggml-org/whisper-vad/resolve/main", "hub/api", "hub/api/models", "hub/api/models/ggml-org",
                        "hub/api/models/ggml-org/whisper-vad", "hub/api/models/ggml-org/whisper-vad/tree"};
  size_t i;
  CHECK(mkdtemp(root) != NULL);
  for (i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
    snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
    CHECK(mkdir(path, 0700) == 0);
  }
  snprintf(path, sizeof path, "%s/hub/ggml-org/whisper-vad/resolve/main/ggml-silero-v6.2.0.bin", root);
  write_file(path, "vad weights");
  snprintf(path, sizeof path, "%s/hub/api/models/ggml-org/whisper-vad/tree/main", root);
  write_file(path, "[{\"type\": \"file\", \"path\": \"ggml-silero-v6.2.0.bin\", \"size\": 11, \"oid\": "
                   "\"ea6fcbc4c3745b8e7f1a13c933b5f6c3202e451b\", \"lfs\": {\"oid\": "
                   "\"5c80c97b573921129844efefafa35c821dcc2d118fe48ac2ccd8321b98c57de7\", \"size\": 11}}]");
  snprintf(hub, sizeof hub, "file://%s/hub", root);
  snprintf(cache, sizeof cache, "%s/cache", root);
  setenv("AURIS_HUB_ENDPOINT", hub, 1);
  setenv("AURIS_MODEL_DIR", cache, 1);

  CHECK(auris_download("silero-vad", count_progress, &calls) == AURIS_OK);
  CHECK(calls > 0);
  snprintf(path, sizeof path, "%s/ggml-silero-v6.2.0.bin", cache);
  CHECK(exists(path));
  CHECK(auris_download("silero-vad", NULL, NULL) == AURIS_OK); /* there already: no transfer */
  CHECK(auris_download("tiny.xx", NULL, NULL) == AURIS_INVALID_ARGUMENT);
  CHECK(strstr(auris_last_error(), "unknown model name 'tiny.xx': known are tiny.en, tiny,") != NULL);
  CHECK(auris_download(NULL, NULL, NULL) == AURIS_INVALID_ARGUMENT);
  CHECK(auris_download("base", NULL, NULL) == AURIS_MODEL_ERROR); /* the stand-in does not hold it */
  CHECK(strstr(auris_last_error(), "/api/models/Systran/faster-whisper-base/tree/main") != NULL);
  unsetenv("AURIS_HUB_ENDPOINT");
  unsetenv("AURIS_MODEL_DIR");
  snprintf(path, sizeof path, "rm -rf '%s'", root); /* the test's own mkdtemp directory */
  CHECK(system(path) == 0);
}

int main(int argc, char** argv) {
  auris_status status;
  auris_model* model;
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL AUDIO\n", argv[0]);
    return 2;
  }
  if (!exists(argv[1]) || !exists(argv[2])) {
    printf("skipped: %s or %s is missing (scripts/fetch_models.sh fetches the model)\n", argv[1], argv[2]);
    return 77;
  }
  model = auris_model_load(argv[1], NULL, NULL, &status);
  if (!model) {
    fprintf(stderr, "FAIL: cannot load %s (%s): %s\n", argv[1], auris_status_name(status), auris_last_error());
    return 1;
  }
  CHECK(status == AURIS_OK);
  transcribes_the_file(model, argv[2]);
  gives_words(model, argv[2]);
  takes_faster_whisper_options(model, argv[2]);
  reports_failures(model, argv[2]);
  cancels_from_callbacks(model, argv[2]);
  downloads_into_the_cache();
  auris_model_free(model);
  printf("%s: %d failed checks\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
