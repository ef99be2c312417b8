"""A2A v0.3 interoperability peer built on the official Python SDK (a2a-sdk 0.3.26).

Run:  $PEERS_DIR/py03/bin/python tests/peers/py03_agent.py --port 0
Serves JSON-RPC (protocol 0.3.0) at /a2a/jsonrpc; v0.3-style card.
Scenarios: see tests/peers/README.md.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from datetime import datetime, timezone

os.environ.setdefault('OTEL_INSTRUMENTATION_A2A_SDK_ENABLED', 'false')
sys.dont_write_bytecode = True  # keep __pycache__ out of tests/peers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import httpx  # noqa: E402

from a2a.server.agent_execution import AgentExecutor, RequestContext  # noqa: E402
from a2a.server.apps import A2AStarletteApplication  # noqa: E402
from a2a.server.apps.rest.fastapi_app import A2ARESTFastAPIApplication  # noqa: E402
from a2a.server.events import EventQueue  # noqa: E402
from a2a.server.request_handlers import DefaultRequestHandler  # noqa: E402
from a2a.server.tasks import (  # noqa: E402
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (  # noqa: E402
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    HTTPAuthSecurityScheme,
    Message,
    DataPart,
    Part,
    Role,
    SecurityScheme,
    Task,
    TaskState,
    TaskStatus,
    TextPart,
)

import peer_common  # noqa: E402

JSONRPC_PATH = '/a2a/jsonrpc'
# The SDK's 0.3 HTTP+JSON binding (its own ProtoJSON of the 0.3 proto: /v1/message:send, /v1/tasks/{id} …).
REST_PATH = '/a2a/rest'
SLOW_TICKS = 120          # 120 x 0.5 s = 60 s
SLOW_INTERVAL = 0.5
CHUNK_INTERVAL = 0.05
# `linger`: the execution stays open this long after asking, and the answer takes LINGER_ANSWER to start
# producing. An answer sent inside LINGER taps the paused execution's event queue, which the SDK closes when that
# execution ends: the request then ends without a result and the SDK replies with a bare -32603, though the
# answer was taken and the task goes on (a race the SDK has for any executor that does work after pausing; a
# fast client meets it). 3 s leaves a slow CI machine ample time to answer inside it.
LINGER = 3.0
LINGER_ANSWER = 3.5


def text_part(t: str) -> Part:
    return Part(root=TextPart(text=t))


def user_text(message: Message | None) -> str:
    if message is None:
        return ''
    return '\n'.join(p.root.text for p in message.parts if isinstance(p.root, TextPart))


def first_word(text: str) -> str:
    words = text.split(None, 1)
    return words[0].lower() if words else ''


def agent_msg(t: str, context_id: str | None, task_id: str | None = None) -> Message:
    return Message(role=Role.agent, parts=[text_part(t)], message_id=str(uuid.uuid4()),
                   context_id=context_id, task_id=task_id)


class PeerExecutor(AgentExecutor):
    def __init__(self) -> None:
        self.lingering: set[str] = set()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        text = user_text(message)
        current = context.current_task
        task_id = context.task_id
        # On a follow-up whose message carries taskId but no contextId, the SDK
        # mints a fresh context.context_id; the task's own contextId is the real one.
        context_id = current.context_id if current is not None else context.context_id
        updater = TaskUpdater(event_queue, task_id, context_id)

        # Continuation of an `ask` task.
        if current is not None and current.status.state == TaskState.input_required:
            if task_id in self.lingering:
                await asyncio.sleep(LINGER_ANSWER)
            await updater.start_work()
            await updater.add_artifact([text_part(f'Nice to meet you, {text}')],
                                       artifact_id='greeting', name='greeting')
            await updater.complete()
            return

        word = first_word(text)
        if word == 'message' and current is None:
            await event_queue.enqueue_event(agent_msg('direct reply', context_id))
            return

        if current is None:
            await event_queue.enqueue_event(Task(
                id=task_id, context_id=context_id,
                status=TaskStatus(state=TaskState.submitted,
                                  timestamp=datetime.now(timezone.utc).isoformat()),
                history=[message] if message else []))

        if word == 'stream':
            await updater.start_work()
            for i in range(10):
                if i:
                    await asyncio.sleep(CHUNK_INTERVAL)
                await updater.add_artifact([text_part(f'chunk {i} ')], artifact_id='story', name='story',
                                           append=True if i > 0 else None,
                                           last_chunk=True if i == 9 else None)
            await updater.complete()
        elif word == 'ask':
            # final=True: v0.3 marks the end of this request's stream with `final`.
            await updater.requires_input(agent_msg('What is your name?', context_id, task_id), final=True)
        elif word == 'linger':
            self.lingering.add(task_id)
            await updater.requires_input(agent_msg('What is your name?', context_id, task_id), final=True)
            await asyncio.sleep(LINGER)
        elif word == 'slow':
            await updater.start_work()
            for i in range(1, SLOW_TICKS + 1):
                await asyncio.sleep(SLOW_INTERVAL)
                await updater.update_status(TaskState.working,
                                            message=agent_msg(f'tick {i}/{SLOW_TICKS}', context_id, task_id))
            await updater.complete()
        elif word == 'fail':
            await updater.failed(agent_msg('Scenario failure requested', context_id, task_id))
        elif word == 'code':
            # A text part and a data part in one artifact (the suites' JSONPath checks read the data).
            await updater.start_work()
            await updater.add_artifact([text_part('# Fibonacci\n'),
                                        Part(root=DataPart(data={'language': 'python', 'tests': {'passed': 3}}))],
                                       artifact_id='code', name='code')
            await updater.complete()
        else:  # echo and anything unrecognised
            await updater.start_work()
            await updater.add_artifact([text_part(f'echo: {text}')], artifact_id='echo', name='echo')
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(agent_msg('Canceled on request', context.context_id, context.task_id))


def skill(sid: str, name: str, desc: str, examples: list[str]) -> AgentSkill:
    return AgentSkill(id=sid, name=name, description=desc, tags=['test'], examples=examples)


def build_cards(base: str) -> tuple[AgentCard, AgentCard]:
    skills = [
        skill('echo', 'Echo', 'Echoes the text back as an artifact named "echo".', ['echo hello']),
        skill('stream', 'Stream', 'Streams an artifact in 10 chunks.', ['stream']),
        skill('ask', 'Ask', 'Asks for your name (input-required), then greets you.', ['ask']),
        skill('slow', 'Slow', 'Works for 60 s with a status update every 0.5 s; cancelable.', ['slow']),
        skill('fail', 'Fail', 'Fails the task on purpose.', ['fail']),
        skill('message', 'Message', 'Answers with a direct message instead of a task.', ['message']),
    ]
    card = AgentCard(
        name='Python v0.3 peer',
        description='Interop test peer built on the official a2a-sdk 0.3.26 (Python).',
        url=base + JSONRPC_PATH,
        preferred_transport='JSONRPC',
        additional_interfaces=[AgentInterface(url=base + REST_PATH, transport='HTTP+JSON')],
        protocol_version='0.3.0',
        provider=AgentProvider(organization='a2a-console tests', url='https://example.invalid/a2a-console'),
        version='0.3.26',
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        security_schemes={'bearer': SecurityScheme(root=HTTPAuthSecurityScheme(
            scheme='Bearer', description='Static test token "peer-secret" (extended card only)'))},
        supports_authenticated_extended_card=True,
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=skills,
    )
    extended = card.model_copy(deep=True)
    extended.name = 'Python v0.3 peer (extended)'
    extended.skills.append(skill('secret-skill', 'Secret skill',
                                 'Only listed on the authenticated extended card.', []))
    return card, extended


def main() -> None:
    args = peer_common.parse_args(__doc__.splitlines()[0], with_no_extended_flag=True)
    sock = peer_common.bind(args.port)
    card, extended = build_cards(peer_common.base_url(sock))
    if args.no_extended_card:
        # The card still says it has one; the SDK then answers the extended-card call with the public card.
        extended = None

    push_store = InMemoryPushNotificationConfigStore()
    handler = DefaultRequestHandler(
        agent_executor=PeerExecutor(),
        task_store=InMemoryTaskStore(),
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(httpx.AsyncClient(timeout=10), push_store),
    )
    jsonrpc = A2AStarletteApplication(agent_card=card, http_handler=handler,
                                      extended_agent_card=extended).build(rpc_url=JSONRPC_PATH)
    rest = A2ARESTFastAPIApplication(agent_card=card, http_handler=handler,
                                     extended_agent_card=extended).build(rpc_url=REST_PATH)

    async def app(scope, receive, send):
        # Both bindings share one handler (and so one task store); the path picks the binding.
        if scope['type'] == 'http' and scope.get('path', '').startswith(REST_PATH + '/'):
            return await rest(scope, receive, send)
        return await jsonrpc(scope, receive, send)

    peer_common.run(peer_common.AuthGate(app, {JSONRPC_PATH}), sock, args)


if __name__ == '__main__':
    main()
