"""A2A v1.0 interoperability peer built on the official Python SDK (a2a-sdk 1.3.0).

Run:  $PEERS_DIR/py10/bin/python tests/peers/py10_agent.py --port 0
Serves JSON-RPC at /a2a/jsonrpc and HTTP+JSON at /a2a/rest (protocol 1.0).
With --with-v03 the same endpoints also accept v0.3 requests (SDK compat
layer) and the card additionally lists 0.3 interfaces.
With --sign ES256|RS256|PS256 the public card is signed at start with a fresh
key by the SDK's a2a.utils.signing; the JWKS is served at /.well-known/jwks.json
(and written to --jwks-out PATH).
With --grpc the same handler is also served over gRPC (the SDK's GrpcHandler, a2a-sdk[grpc]) on another
127.0.0.1 port, and the card lists that GRPC interface first.
Scenarios: see tests/peers/README.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

os.environ.setdefault('OTEL_INSTRUMENTATION_A2A_SDK_ENABLED', 'false')
sys.dont_write_bytecode = True  # keep __pycache__ out of tests/peers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import httpx  # noqa: E402
from google.protobuf.timestamp_pb2 import Timestamp  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Mount, Route  # noqa: E402

from a2a.helpers.proto_helpers import new_text_message  # noqa: E402
from a2a.server.agent_execution import AgentExecutor, RequestContext  # noqa: E402
from a2a.server.events import EventQueue  # noqa: E402
from a2a.server.request_handlers import DefaultRequestHandler  # noqa: E402
from a2a.server.routes import (  # noqa: E402
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import (  # noqa: E402
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types.a2a_pb2 import (  # noqa: E402
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    HTTPAuthSecurityScheme,
    Part,
    SecurityScheme,
    Task,
    TaskState,
    TaskStatus,
)

from google.protobuf import json_format, struct_pb2  # noqa: E402

import peer_common  # noqa: E402

JSONRPC_PATH = '/a2a/jsonrpc'
REST_PATH = '/a2a/rest'
SLOW_TICKS = 120          # 120 x 0.5 s = 60 s
SLOW_INTERVAL = 0.5
CHUNK_INTERVAL = 0.05
QUIET_SECS = 60


def now() -> Timestamp:
    ts = Timestamp()
    ts.GetCurrentTime()
    return ts


def user_text(message) -> str:
    return '\n'.join(p.text for p in message.parts if p.HasField('text'))


def first_word(text: str) -> str:
    words = text.split(None, 1)
    return words[0].lower() if words else ''


class PeerExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        text = user_text(message)
        current = context.current_task
        task_id = context.task_id
        # On a follow-up whose message carries taskId but no contextId, the SDK
        # mints a fresh context.context_id; the task's own contextId is the real one.
        context_id = current.context_id if current is not None else context.context_id
        updater = TaskUpdater(event_queue, task_id, context_id)

        def agent_msg(t: str):
            return new_text_message(t, context_id=context_id, task_id=task_id)

        # Continuation of an `ask` task.
        if current is not None and current.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            await updater.start_work()
            await updater.add_artifact([Part(text=f'Nice to meet you, {text}')],
                                       artifact_id='greeting', name='greeting')
            await updater.complete()
            return

        word = first_word(text)
        if word == 'message' and current is None:
            await event_queue.enqueue_event(new_text_message('direct reply', context_id=context_id))
            return

        if current is None:
            await event_queue.enqueue_event(Task(
                id=task_id, context_id=context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED, timestamp=now()),
                history=[message]))

        if word == 'stream':
            await updater.start_work()
            for i in range(10):
                if i:
                    await asyncio.sleep(CHUNK_INTERVAL)
                await updater.add_artifact([Part(text=f'chunk {i} ')], artifact_id='story', name='story',
                                           append=True if i > 0 else None,
                                           last_chunk=True if i == 9 else None)
            await updater.complete()
        elif word == 'ask':
            await updater.requires_input(agent_msg('What is your name?'))
        elif word == 'slow':
            await updater.start_work()
            for i in range(1, SLOW_TICKS + 1):
                await asyncio.sleep(SLOW_INTERVAL)
                await updater.update_status(TaskState.TASK_STATE_WORKING,
                                            message=agent_msg(f'tick {i}/{SLOW_TICKS}'))
            await updater.complete()
        elif word == 'quiet':
            # Working, then silent for a long time: what an idle timeout is for. py10 only, and not on the
            # card (the three peers' cards list the same six skills).
            await updater.start_work()
            await asyncio.sleep(QUIET_SECS)
            await updater.complete()
        elif word == 'code':
            # One artifact, two parts (markdown with a fenced block, then data), and no lastChunk: what the
            # SDK's add_artifact sends by default.
            await updater.start_work()
            data = json_format.ParseDict({'language': 'python', 'tests': {'passed': 3}}, struct_pb2.Value())
            await updater.add_artifact(
                [Part(text='# Fibonacci\n\n```python\ndef fib(n):\n    return n\n```\n', media_type='text/markdown'),
                 Part(data=data, media_type='application/json')],
                artifact_id='code', name='code')
            await updater.complete()
        elif word == 'fail':
            await updater.failed(agent_msg('Scenario failure requested'))
        else:  # echo and anything unrecognised
            await updater.start_work()
            await updater.add_artifact([Part(text=f'echo: {text}')], artifact_id='echo', name='echo')
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(new_text_message('Canceled on request', context_id=context.context_id,
                                              task_id=context.task_id))


def skill(sid: str, name: str, desc: str, examples: list[str]) -> AgentSkill:
    return AgentSkill(id=sid, name=name, description=desc, tags=['test'], examples=examples)


def build_cards(base: str, with_v03: bool) -> tuple[AgentCard, AgentCard]:
    interfaces = [
        AgentInterface(url=base + JSONRPC_PATH, protocol_binding='JSONRPC', protocol_version='1.0'),
        AgentInterface(url=base + REST_PATH, protocol_binding='HTTP+JSON', protocol_version='1.0'),
    ]
    if with_v03:
        interfaces += [
            AgentInterface(url=base + JSONRPC_PATH, protocol_binding='JSONRPC', protocol_version='0.3'),
            AgentInterface(url=base + REST_PATH, protocol_binding='HTTP+JSON', protocol_version='0.3'),
        ]
    skills = [
        skill('echo', 'Echo', 'Echoes the text back as an artifact named "echo".', ['echo hello']),
        skill('stream', 'Stream', 'Streams an artifact in 10 chunks.', ['stream']),
        skill('ask', 'Ask', 'Asks for your name (input-required), then greets you.', ['ask']),
        skill('slow', 'Slow', 'Works for 60 s with a status update every 0.5 s; cancelable.', ['slow']),
        skill('fail', 'Fail', 'Fails the task on purpose.', ['fail']),
        skill('message', 'Message', 'Answers with a direct message instead of a task.', ['message']),
    ]
    card = AgentCard(
        name='Python v1.0 peer',
        description='Interop test peer built on the official a2a-sdk 1.3.0 (Python).',
        supported_interfaces=interfaces,
        provider=AgentProvider(organization='a2a-console tests', url='https://example.invalid/a2a-console'),
        version='1.3.0',
        capabilities=AgentCapabilities(streaming=True, push_notifications=True, extended_agent_card=True),
        security_schemes={'bearer': SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(
            scheme='Bearer', description='Static test token "peer-secret" (extended card only)'))},
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=skills,
    )
    extended = AgentCard()
    extended.CopyFrom(card)
    extended.name = 'Python v1.0 peer (extended)'
    extended.skills.append(skill('secret-skill', 'Secret skill',
                                 'Only listed on the authenticated extended card.', []))
    return card, extended


JWKS_PATH = '/.well-known/jwks.json'


def sign_card(card: AgentCard, alg: str, base: str, jwks_out: str | None) -> dict:
    """Sign the public card with a fresh key, using the SDK's own signer (a2a.utils.signing).

    The key is made here on every start; its public half is served as a JWKS at
    JWKS_PATH (the signature's jku) and, with --jwks-out, written to that file.
    """
    import secrets

    import jwt.algorithms
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    from a2a.utils.signing import create_agent_card_signer

    if alg == 'ES256':
        private = ec.generate_private_key(ec.SECP256R1())
        public_jwk = jwt.algorithms.ECAlgorithm.to_jwk(private.public_key(), as_dict=True)
    elif alg in ('RS256', 'PS256'):
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public_jwk = jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key(), as_dict=True)
    else:
        raise SystemExit(f'--sign: unsupported algorithm {alg}')
    kid = f'py-{alg.lower()}-{secrets.token_hex(4)}'
    public_jwk.update({'kid': kid, 'alg': alg, 'use': 'sig'})
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    signer = create_agent_card_signer(
        signing_key=pem,
        protected_header={'alg': alg, 'kid': kid, 'jku': base + JWKS_PATH, 'typ': 'JOSE'},
    )
    signer(card)
    jwks = {'keys': [public_jwk]}
    if jwks_out:
        with open(jwks_out, 'w', encoding='utf-8') as f:
            json.dump(jwks, f)
    return jwks


def grpc_starter(handler, card: AgentCard):
    """The gRPC front: the SDK's GrpcHandler over the same request handler, on a free 127.0.0.1 port. Started
    inside the server's event loop (grpc.aio needs one); the card gains the interface before anyone reads it."""
    import grpc.aio

    from a2a.server.request_handlers import GrpcHandler
    from a2a.types import a2a_pb2_grpc

    async def start():
        server = grpc.aio.server()
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
        port = server.add_insecure_port(f'{peer_common.HOST}:0')
        await server.start()
        card.supported_interfaces.insert(0, AgentInterface(
            url=f'http://{peer_common.HOST}:{port}', protocol_binding='GRPC', protocol_version='1.0'))
        return server

    return start


def main() -> None:
    args = peer_common.parse_args(__doc__.splitlines()[0], with_v03_flag=True, with_sign_flag=True,
                                  with_grpc_flag=True)
    args_v03 = args.with_v03
    if args.grpc and args.sign:
        raise SystemExit('--grpc and --sign: the gRPC port is known only after the card is signed')
    sock = peer_common.bind(args.port)
    base = peer_common.base_url(sock)
    card, extended = build_cards(base, args_v03)
    jwks = sign_card(card, args.sign, base, args.jwks_out) if args.sign else None

    push_store = InMemoryPushNotificationConfigStore()
    handler = DefaultRequestHandler(
        agent_executor=PeerExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(httpx.AsyncClient(timeout=10), push_store),
        extended_agent_card=extended,
    )
    extra_routes = []
    if jwks is not None:
        async def serve_jwks(_request):
            return JSONResponse(jwks, media_type='application/jwk-set+json')
        extra_routes.append(Route(JWKS_PATH, serve_jwks))
    app = Starlette(routes=[
        *extra_routes,
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, JSONRPC_PATH, enable_v0_3_compat=args_v03),
        Mount(REST_PATH, routes=create_rest_routes(handler, enable_v0_3_compat=args_v03)),
    ])
    on_start = grpc_starter(handler, card) if args.grpc else None
    peer_common.run(peer_common.AuthGate(app, {JSONRPC_PATH}), sock, args, on_start=on_start)


if __name__ == '__main__':
    main()
