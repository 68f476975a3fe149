/* auris from C, and from any language that calls C (Python's ctypes, Go's cgo, Rust, C#, Java's FFM):
 * load a Whisper model, transcribe a file or samples in memory, read the segments and words.
 * A C99 header: opaque handles and plain structs, nothing of C++ crosses it. Link with -lauris
 * (pkg-config auris) or, in CMake, find_package(auris CONFIG) and auris::auris.
 *
 *   auris_status status;
 *   auris_model* model = auris_model_load("tiny.en", NULL, NULL, &status);
 *   if (!model) { fprintf(stderr, "%s\n", auris_last_error()); return 1; }
 *   auris_transcribe_options opts;
 *   auris_transcribe_options_init(&opts);
 *   auris_result* result = NULL;
 *   if (auris_transcribe_file(model, "jfk.flac", &opts, &result) == AURIS_OK) {
 *     printf("%s\n", auris_result_text(result));
 *     auris_result_free(result);
 *   }
 *   auris_model_free(model);
 *
 * Errors: every call that can fail reports an auris_status (returned, or through a status pointer,
 * which may be NULL) and sets the calling thread's message, auris_last_error(): what went wrong
 * and what to do, "" after a call that succeeded. No C++ exception ever leaves these functions.
 *
 * Threads: a model may be shared by any number of threads, which may transcribe with it at the
 * same time: each call is independent (its own decoding state, its own thread count) and runs on
 * the calling thread, which is also the thread its callbacks are called on. Free a model only when
 * no call is using it. Results are owned by the caller, who frees each with auris_result_free; a
 * result is read-only, so threads may read one together.
 *
 * Strings are UTF-8. Pointers into a result stay valid until the result is freed.
 *
 * Versions: the structs below are part of the binary interface, passed by address at their full
 * size. A release that adds or changes a field changes the shared library's soname
 * (libauris.so.MAJOR.MINOR), so a program runs only with the library of the MAJOR.MINOR whose header
 * it was built with; patch releases keep every struct as it is. */
#ifndef AURIS_AURIS_H
#define AURIS_AURIS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum auris_status {
  AURIS_OK = 0,
  AURIS_INVALID_ARGUMENT = 1, /* a NULL pointer, an option out of range, a language the model lacks */
  AURIS_MODEL_ERROR = 2,      /* the model (or the VAD model) is missing or unreadable, or the device cannot run it */
  AURIS_AUDIO_ERROR = 3,      /* the audio file is missing, unreadable or not audio, or holds no samples */
  AURIS_CANCELLED = 4,        /* a callback returned non-zero */
  AURIS_INTERNAL_ERROR = 5    /* out of memory, or a bug in auris: the message says which */
} auris_status;

/* The calling thread's message for its last call that reports a status: "" when it succeeded.
 * Valid until the thread's next call. */
const char* auris_last_error(void);
/* "ok", "invalid argument", "model error", "audio error", "cancelled", "internal error". */
const char* auris_status_name(auris_status status);

/* ---- Models ---- */

typedef struct auris_model auris_model;

/* name_or_path: a CTranslate2 or Hugging Face model directory, a whisper.cpp ggml file, or the name of
 * a model in the cache ($AURIS_MODEL_DIR, else ~/.cache/auris/models: "tiny.en", "base", ...).
 * compute_type: "float32" (NULL), "float16", "bfloat16", "int8" or "int8_bfloat16". device: "cpu" (NULL) or "cuda".
 * Returns NULL on failure, with *status (if status is not NULL) and auris_last_error() saying why. */
auris_model* auris_model_load(const char* name_or_path, const char* compute_type, const char* device,
                              auris_status* status);
/* NULL is ignored. */
void auris_model_free(auris_model* model);

/* Called as a download's data arrives: the file, its bytes so far and its size (0 while unknown). */
typedef void (*auris_download_progress)(const char* file, long long done, long long total, void* user_data);

/* Fetches an official model by name ("tiny.en", "base", ..., "large-v3-turbo": its CTranslate2
 * conversion), a hub repository's Whisper model ("owner/name", CTranslate2 or Hugging Face format),
 * or the VAD model ("silero-vad") from the Hugging Face Hub ($AURIS_HUB_ENDPOINT names a
 * mirror) into the model cache, unless it is there already; auris_model_load and the vad_model option
 * then take the name. Every file is checked against the Hub's listing (its size, and its SHA-256 or
 * Git blob id). progress may be NULL. AURIS_INVALID_ARGUMENT for a name auris does not know;
 * AURIS_MODEL_ERROR for a failed transfer, a file that is not what the Hub lists, or a cache that
 * cannot be written. */
auris_status auris_download(const char* name, auris_download_progress progress, void* user_data);

/* ---- Results ---- */

typedef struct auris_word {
  const char* word; /* with its leading space, as openai/whisper's word timestamps */
  double start;     /* seconds from the start of the audio */
  double end;
  double probability;
} auris_word;

typedef struct auris_segment_view {
  int id;
  double start; /* seconds from the start of the audio */
  double end;
  const char* text;
  double avg_logprob;
  double no_speech_prob;
  size_t word_count;       /* 0 unless word_timestamps was set */
  const auris_word* words; /* word_count of them */
} auris_segment_view;

typedef struct auris_result auris_result;

size_t auris_result_segment_count(const auris_result* result);
/* Segment index (0 .. count-1) into *segment; AURIS_INVALID_ARGUMENT past the end. */
auris_status auris_result_segment(const auris_result* result, size_t index, auris_segment_view* segment);
const char* auris_result_text(const auris_result* result);     /* every segment's text, joined */
const char* auris_result_language(const auris_result* result); /* the language code, given or detected */
double auris_result_duration(const auris_result* result);      /* seconds of audio */
/* NULL is ignored. */
void auris_result_free(auris_result* result);

/* ---- Transcription ---- */

typedef struct auris_transcribe_options {
  const char* language;  /* a code ("en", "de") or a name; NULL: detected (multilingual models) */
  const char* task;      /* "transcribe" (NULL) or "translate" (into English; multilingual models) */
  int beam_size;         /* beams at temperature 0: 5 (at most 64); 0 decodes greedily */
  int best_of;           /* candidates sampled at temperature > 0: 5 (at most 64) */
  /* Temperature fallback: a window whose text fails openai's checks (too repetitive, too improbable)
   * is decoded again at temperature + increment, + 2 increments, ... up to 1.0. 0 and 0.2; an
   * increment of 0 decodes each window once. At most 100 temperatures (AURIS_INVALID_ARGUMENT). */
  double temperature;
  double temperature_increment;
  int word_timestamps;            /* 0; 1 fills each segment's words */
  const char* initial_prompt;     /* NULL; text the first window continues (names, spelling, style) */
  int condition_on_previous_text; /* 1: each window continues the text of the windows before it */
  /* 1: only the speech that Silero VAD finds is transcribed (faster-whisper's vad_filter, its
   * defaults); times stay the original audio's. vad_model: a name in the model cache or a
   * whisper.cpp ggml VAD file; NULL is "silero-vad", fetched once by `auris download silero-vad`. */
  int vad;
  const char* vad_model;
  int threads; /* CPU threads of this call, at most 1024; 0: all cores (or OMP_NUM_THREADS) */

  /* Called on the calling thread. A non-zero return stops the transcription before the next window
   * is decoded, and the call returns AURIS_CANCELLED (and no result). The segment's pointers are
   * valid during the call only. on_segment: each segment, as soon as its window is decided.
   * on_progress: after each window, the seconds of audio done and in total (with vad: of speech). */
  int (*on_segment)(const auris_segment_view* segment, void* user_data);
  int (*on_progress)(double done_seconds, double total_seconds, void* user_data);
  void* user_data; /* passed to both callbacks */

  /* faster-whisper's options. */
  const char* hotwords; /* NULL; words (names, terms) that start every window's prompt, before its previous text */
  /* Language detection (language NULL, multilingual models) over up to this many 30-s windows: 1 (at
   * most 100); the first window whose language is more probable than the threshold (0.5, 0 to 1)
   * decides, and if none is, the language on top most often. */
  int language_detection_segments;
  double language_detection_threshold;
  int multilingual;          /* 0; 1 detects every window's language and decodes the window in it */
  double repetition_penalty; /* 1 (none); above 1 discourages the tokens a window's text already holds (0.001 to 1000) */
  int no_repeat_ngram_size;  /* 0 (off); n > 0: no n tokens in a row are repeated within a window */
} auris_transcribe_options;

/* Sets openai/whisper's defaults (those of its command line, and of `auris transcribe`), written
 * beside each field above. Call it before setting fields: a program rebuilt against a later version
 * then gets the defaults of the fields it does not know. */
void auris_transcribe_options_init(auris_transcribe_options* options);

/* Transcribes an audio file of any length and format FFmpeg reads ("-": standard input), in bounded
 * memory. options may be NULL (the defaults). On AURIS_OK, *result is the caller's to free; on
 * failure it is NULL. */
auris_status auris_transcribe_file(const auris_model* model, const char* path, const auris_transcribe_options* options,
                                   auris_result** result);

/* The same for samples in memory: n mono float samples in [-1, 1] at sample_rate, which must be 16000. */
auris_status auris_transcribe_pcm(const auris_model* model, const float* samples, size_t n, int sample_rate,
                                  const auris_transcribe_options* options, auris_result** result);

#ifdef __cplusplus
}
#endif

#endif /* AURIS_AURIS_H */
