"""What every peer runner shares: the command line bench/speed.py gives it (model, beam size,
threads, language, audio) and the one JSON line it prints back."""
import argparse
import json
import time


def parse_args(model_help, add_options=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, help=model_help)
    parser.add_argument("--beam", type=int, default=1, help="beam size; 1 = greedy")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--language", default="en")
    if add_options:
        add_options(parser)
    parser.add_argument("audio")
    return parser.parse_args()


def report(text, start, loaded):
    """Prints the transcript and the seconds spent loading (start..loaded) and transcribing (since)."""
    done = time.perf_counter()
    print(json.dumps({"text": text.strip(), "load_s": loaded - start, "transcribe_s": done - loaded}))
