"""Streaming client on the official Python SDK (a2a-sdk 1.3.0), for the wire benchmark (benches/wire/).

Run:  $PEERS_DIR/py10/bin/python tests/peers/py_stream_client.py --url http://127.0.0.1:PORT --text 'flood 100000'

Resolves the agent card at <url>/.well-known/agent-card.json, lets the SDK's ClientFactory pick the
interface (the replay server offers JSON-RPC 1.0 only), sends one SendStreamingMessage and counts the
events the SDK hands back, decoded into its protobuf types. Prints one line and exits:

    WIRE events=<n> errors=<n> last=<task|message|status_update|artifact_update|none> state=<final state>

Exit code 0 when the stream ended without an error, 1 otherwise (the line is printed either way, so a
client that stops early still reports how far it got). Only 127.0.0.1 should be given as the URL.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid

os.environ.setdefault('OTEL_INSTRUMENTATION_A2A_SDK_ENABLED', 'false')
sys.dont_write_bytecode = True  # keep __pycache__ out of tests/peers

import httpx  # noqa: E402

from a2a.client import ClientConfig, ClientFactory  # noqa: E402
from a2a.types.a2a_pb2 import (  # noqa: E402
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--url', required=True, help='the agent base URL (127.0.0.1 only)')
    p.add_argument('--text', default='flood 100000', help='the message text')
    return p.parse_args()


async def run(url: str, text: str) -> int:
    events = 0
    errors = 0
    last = 'none'
    state = 'none'
    # No timeout: a 20 MB event or a 100 000-event stream must not be cut by httpx's 5 s default;
    # the benchmark bounds the whole process instead. trust_env=False: never a proxy for loopback.
    async with httpx.AsyncClient(timeout=None, trust_env=False) as http:
        factory = ClientFactory(ClientConfig(streaming=True, httpx_client=http))
        try:
            client = await factory.create_from_url(url)
            request = SendMessageRequest(
                message=Message(
                    role=Role.ROLE_USER,
                    parts=[Part(text=text)],
                    message_id=str(uuid.uuid4()),
                )
            )
            async for event in client.send_message(request):
                events += 1
                last = event.WhichOneof('payload') or 'none'
                if last == 'status_update':
                    state = TaskState.Name(event.status_update.status.state)
                elif last == 'task':
                    state = TaskState.Name(event.task.status.state)
        except Exception as e:  # noqa: BLE001 - report any failure as a counted error, then exit 1
            errors += 1
            print(f'error: {type(e).__name__}: {e}'[:500], file=sys.stderr)
    print(f'WIRE events={events} errors={errors} last={last} state={state}', flush=True)
    return 0 if errors == 0 else 1


def main() -> None:
    args = parse_args()
    sys.exit(asyncio.run(run(args.url, args.text)))


if __name__ == '__main__':
    main()
