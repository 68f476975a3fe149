#!/usr/bin/env python3
"""A realtime transcription session (`auris serve`'s GET /v1/realtime) fed a file at the speed it
plays: bench/stream_latency.py's --server mode runs it with build/pyenv's python (it needs the
`websockets` package). Prints one JSON object: the delta events, each with "time", the wall seconds
since the first chunk was sent, and the completed transcripts.

Usage: realtime_client.py --url ws://127.0.0.1:PORT/v1/realtime?intent=transcription --audio FILE
       [--model tiny.en] [--beam-size 5] [--chunk-ms 100] [--turn-detection]

--turn-detection asks for server_vad with the server's defaults: the server closes each turn at a
silence, and the final commit closes the last one (or finds it closed already).
"""
import argparse
import base64
import json
import subprocess
import threading
import time

import websockets.sync.client

RATE = 24000  # OpenAI's audio/pcm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--audio", required=True)
    parser.add_argument("--model", default="tiny.en")
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--chunk-ms", type=int, default=100)
    parser.add_argument("--turn-detection", action="store_true", help="server_vad, the server's defaults")
    args = parser.parse_args()
    pcm = subprocess.run(["ffmpeg", "-v", "error", "-i", args.audio, "-ar", str(RATE), "-ac", "1", "-f", "s16le", "-"],
                         capture_output=True, check=True).stdout
    chunk = RATE * args.chunk_ms // 1000 * 2

    with websockets.sync.client.connect(args.url, max_size=None) as ws:
        assert json.loads(ws.recv())["type"] == "session.created"
        ws.send(json.dumps({"type": "session.update", "session": {"type": "transcription", "audio": {"input": {
            "transcription": {"model": args.model, "beam_size": args.beam_size},
            "turn_detection": {"type": "server_vad"} if args.turn_detection else None}}}}))
        assert json.loads(ws.recv())["type"] == "session.updated"
        deltas, completed, done, committing = [], [], threading.Event(), threading.Event()
        start = time.monotonic()

        def receive():
            for message in ws:
                event = json.loads(message)
                if event["type"] == "conversation.item.input_audio_transcription.delta":
                    deltas.append({"delta": event["delta"], "time": time.monotonic() - start})
                elif event["type"] == "conversation.item.input_audio_transcription.completed":
                    completed.append(event["transcript"])
                    if committing.is_set():
                        done.set()
                elif event["type"] == "error":
                    if committing.is_set() and event["error"]["code"] == "input_audio_buffer_commit_empty":
                        done.set()  # the last turn was closed at its silence
                        continue
                    raise SystemExit(f"error event: {event}")

        reader = threading.Thread(target=receive, daemon=True)
        reader.start()
        for i, at in enumerate(range(0, len(pcm), chunk)):
            # Each chunk is sent once its last sample has been "spoken".
            time.sleep(max(0.0, (i + 1) * args.chunk_ms / 1000 - (time.monotonic() - start)))
            ws.send(json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm[at:at + chunk]).decode()}))
        committing.set()
        ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
        done.wait(600)
    print(json.dumps({"deltas": deltas, "completed": completed, "audio_seconds": len(pcm) / 2 / RATE}))


if __name__ == "__main__":
    main()
