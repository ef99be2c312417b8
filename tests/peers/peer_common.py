"""Plumbing shared by the Python peers (no A2A SDK code in here).

- command line: ``--port N`` (0 = any free port), ``--ignore-stdin``
- binds 127.0.0.1 only, prints ``READY http://127.0.0.1:<port>`` once the
  server accepts connections
- exits on SIGTERM/SIGINT and when stdin reaches EOF (so a test that dies
  cannot leak a peer); a watchdog hard-exits if graceful shutdown stalls
- ``AuthGate``: ASGI middleware answering 401 to extended-card requests that
  lack ``Authorization: Bearer peer-secret``. Neither SDK authenticates
  anything itself, so this gate is ours and identical on every peer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import sys
import threading
import time

import uvicorn

TOKEN = 'peer-secret'
HOST = '127.0.0.1'

# JSON-RPC methods (v1.0 and v0.3 names) that return the extended card.
EXTENDED_CARD_METHODS = {'GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard'}
# HTTP paths (suffixes) that return the extended card.
EXTENDED_CARD_PATH_SUFFIXES = (
    '/extendedAgentCard',              # v1.0 REST
    '/v1/card',                        # v0.3 REST
    '/agent/authenticatedExtendedCard',  # v0.3 legacy GET endpoint
)


def parse_args(description: str, with_v03_flag: bool = False,
               with_sign_flag: bool = False, with_grpc_flag: bool = False,
               with_no_extended_flag: bool = False) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=description)
    if with_no_extended_flag:
        p.add_argument('--no-extended-card', action='store_true',
                       help='configure no extended card (the card still declares one)')
    if with_grpc_flag:
        p.add_argument('--grpc', action='store_true',
                       help='also serve gRPC (SDK GrpcHandler) on another port; the card lists it first')
    if with_sign_flag:
        p.add_argument('--sign', choices=['ES256', 'RS256', 'PS256'],
                       help='sign the card at start with a fresh key of this algorithm (SDK signer)')
        p.add_argument('--jwks-out', metavar='PATH', help='with --sign: also write the public JWKS here')
    if with_v03_flag:
        p.add_argument('--with-v03', action='store_true',
                       help='also accept v0.3 requests (SDK compat layer) and list 0.3 interfaces')
    p.add_argument('--port', type=int, default=0, help='TCP port on 127.0.0.1 (0 = pick a free one)')
    p.add_argument('--ignore-stdin', action='store_true',
                   help='do not exit when stdin is closed (for running by hand in the background)')
    p.add_argument('--log-level', default='warning')
    return p.parse_args()


def bind(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def base_url(sock: socket.socket) -> str:
    return f'http://{HOST}:{sock.getsockname()[1]}'


def bearer_ok(headers: list[tuple[bytes, bytes]]) -> bool:
    for k, v in headers:
        if k.lower() == b'authorization':
            parts = v.decode('latin-1').strip().split(None, 1)
            return len(parts) == 2 and parts[0].lower() == 'bearer' and parts[1].strip() == TOKEN
    return False


class AuthGate:
    """401 for extended-card requests without the right bearer token."""

    def __init__(self, app, rpc_paths: set[str]):
        self.app = app
        self.rpc_paths = rpc_paths

    async def _deny(self, send) -> None:
        body = json.dumps({'error': 'unauthorized',
                           'message': 'missing or invalid bearer token'}).encode()
        await send({'type': 'http.response.start', 'status': 401, 'headers': [
            (b'content-type', b'application/json'),
            (b'www-authenticate', b'Bearer realm="a2a-peer"'),
            (b'content-length', str(len(body)).encode()),
        ]})
        await send({'type': 'http.response.body', 'body': body})

    async def __call__(self, scope, receive, send):
        if scope['type'] != 'http':
            return await self.app(scope, receive, send)
        path = scope.get('path', '')
        authed = bearer_ok(scope.get('headers', []))
        if path.endswith(EXTENDED_CARD_PATH_SUFFIXES) and not authed:
            return await self._deny(send)
        if scope['method'] == 'POST' and path.rstrip('/') in self.rpc_paths and not authed:
            # Buffer the JSON-RPC body to look at the method, then replay it.
            chunks = []
            while True:
                msg = await receive()
                if msg['type'] == 'http.disconnect':
                    return
                chunks.append(msg.get('body', b''))
                if not msg.get('more_body'):
                    break
            body = b''.join(chunks)
            try:
                doc = json.loads(body)
                method = doc.get('method') if isinstance(doc, dict) else None
            except ValueError:
                method = None
            if method in EXTENDED_CARD_METHODS:
                return await self._deny(send)
            replayed = False

            async def replay():
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {'type': 'http.request', 'body': body, 'more_body': False}
                return await receive()

            return await self.app(scope, replay, send)
        return await self.app(scope, receive, send)


def run(app, sock: socket.socket, args: argparse.Namespace, on_start=None) -> None:
    """Serve `app` on the already bound socket until SIGTERM or stdin EOF. `on_start`, if given, is an async
    function run in the server's loop before READY is printed (it returns a server with `stop(grace)`)."""
    config = uvicorn.Config(app, log_level=args.log_level, access_log=False,
                            timeout_graceful_shutdown=1, lifespan='off')
    server = uvicorn.Server(config)

    def hard_exit_later():
        time.sleep(3)
        os._exit(0)

    watchdog = threading.Event()

    def request_exit():
        server.should_exit = True
        if not watchdog.is_set():
            watchdog.set()
            threading.Thread(target=hard_exit_later, daemon=True).start()

    if not args.ignore_stdin:
        def watch_stdin():
            try:
                while sys.stdin.buffer.read1(4096):
                    pass
            except Exception:  # noqa: BLE001 - closed/absent stdin counts as EOF
                pass
            request_exit()
        threading.Thread(target=watch_stdin, daemon=True).start()

    async def main():
        extra = await on_start() if on_start is not None else None

        async def announce():
            while not server.started:
                if server.should_exit:
                    return
                await asyncio.sleep(0.02)
            sys.stdout.write(f'READY {base_url(sock)}\n')
            sys.stdout.flush()

        task = asyncio.create_task(announce())
        # uvicorn handles SIGINT/SIGTERM itself (sets should_exit); make sure
        # the watchdog also runs in that case.
        serve = asyncio.create_task(server.serve(sockets=[sock]))
        while not serve.done():
            if server.should_exit:
                request_exit()
            await asyncio.sleep(0.1)
        task.cancel()
        await serve
        if extra is not None:
            await extra.stop(0)

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    asyncio.run(main())
    os._exit(0)
