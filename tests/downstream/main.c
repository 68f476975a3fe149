/* The C API from an installed auris: transcribe a file, print its text. Usage: c_api MODEL AUDIO */
#include <auris/auris.h>
#include <stdio.h>

int main(int argc, char** argv) {
  auris_status status;
  auris_model* model;
  auris_result* result = NULL;
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL AUDIO\n", argv[0]);
    return 2;
  }
  model = auris_model_load(argv[1], NULL, NULL, &status);
  if (!model) {
    fprintf(stderr, "%s: %s\n", auris_status_name(status), auris_last_error());
    return 1;
  }
  status = auris_transcribe_file(model, argv[2], NULL, &result);
  if (status == AURIS_OK) printf("%s\n", auris_result_text(result));
  else fprintf(stderr, "%s: %s\n", auris_status_name(status), auris_last_error());
  auris_result_free(result);
  auris_model_free(model);
  return status == AURIS_OK ? 0 : 1;
}
