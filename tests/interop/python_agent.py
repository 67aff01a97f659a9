#!/usr/bin/env python3
"""Demo A2A agent built on the official Python SDK (a2a-sdk 0.3.26) server side.

It serves the same behaviours as our Rust `a2a serve --agent demo` on all three
of the SDK's transports at once, so that our Rust *client* can be tested
against the reference implementation:

  * JSON-RPC  -> `A2AStarletteApplication` (POST `/`, card at `/.well-known/agent-card.json`)
  * HTTP+JSON -> `A2ARESTFastAPIApplication` (`/v1/...`, same card path)
  * gRPC      -> `grpc.aio` server with the SDK's `GrpcHandler`

Behaviours (see tests/interop/README.md):
  * default (skill `echo`): Task, `working`, the user's text back as artifact
    chunks (artifact name `echo`, append=True after the first chunk, lastChunk
    on the last), then a final `completed`. File and data parts are described
    in extra text appended after the echoed text.
  * message metadata `{"reply": "message"}`: a single agent Message with the
    user's text.
  * `interview`: `input-required` with a question; a follow-up on that task
    -> `completed` with an artifact greeting the answer.
  * `countdown N`: `working`, one status update per second, `completed` after
    N seconds; cancelable.

Usage:
  python_agent.py [--host 127.0.0.1] [--jsonrpc-port 0] [--rest-port 0] [--grpc-port 0]

Once each listener is really bound and serving, it prints exactly one line:
  listening jsonrpc http://127.0.0.1:P/
  listening http+json http://127.0.0.1:P
  listening grpc 127.0.0.1:P
Stops on SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import signal
import socket
import sys

import grpc
import httpx
import uvicorn

from a2a.grpc import a2a_pb2_grpc
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    Message,
    Part,
    TaskState,
    TextPart,
    TransportProtocol,
)
from a2a.utils import new_agent_text_message, new_task

log = logging.getLogger('python_agent')

COUNTDOWN_RE = re.compile(r'^\s*countdown\s+(\d+)\s*$', re.IGNORECASE)
MAX_COUNTDOWN = 300  # seconds; keeps every loop in this agent bounded
CHUNK_COUNT = 3  # echo artifacts are split into (at most) this many chunks
QUESTION = 'What is your name?'


def _user_text(message: Message) -> str:
    """Concatenation of the text parts (no delimiter), as sent by the user."""
    return ''.join(p.root.text for p in message.parts if isinstance(p.root, TextPart))


def _describe_other_parts(message: Message) -> list[str]:
    """One line per file/data part, so the echo shows that they arrived."""
    out = []
    for p in message.parts:
        root = p.root
        if isinstance(root, FilePart):
            f = root.file
            where = (
                f'uri={f.uri}'
                if isinstance(f, FileWithUri)
                else f'base64_chars={len(f.bytes) if isinstance(f, FileWithBytes) else 0}'
            )
            out.append(f'[file name={f.name} mimeType={f.mime_type} {where}]')
        elif isinstance(root, DataPart):
            out.append(f'[data keys={sorted(root.data.keys())}]')
    return out


def _chunks(text: str, n: int) -> list[str]:
    if not text:
        return ['']
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


class DemoAgentExecutor(AgentExecutor):
    """The demo behaviours, written against the SDK's AgentExecutor API."""

    def __init__(self) -> None:
        # task id -> updater bound to the task's *main* event queue, so that a
        # cancel reaches every subscriber (the handler gives `cancel` a tap).
        self._running: dict[str, TaskUpdater] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None
        text = _user_text(message)
        metadata = message.metadata or {}
        task = context.current_task

        if task is None and metadata.get('reply') == 'message':
            reply = '\n'.join([text, *_describe_other_parts(message)])
            await event_queue.enqueue_event(
                new_agent_text_message(reply, context_id=context.context_id)
            )
            return

        if task is None:
            task = new_task(message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)

        # Follow-up on an interview task.
        if task.status.state == TaskState.input_required:
            await updater.start_work()
            await updater.add_artifact(
                [Part(root=TextPart(text=f'Nice to meet you, {text.strip()}!'))],
                name='greeting',
                last_chunk=True,
            )
            await updater.complete()
            return

        if text.strip().lower() == 'interview':
            await updater.requires_input(
                updater.new_agent_message([Part(root=TextPart(text=QUESTION))]),
                final=True,
            )
            return

        m = COUNTDOWN_RE.match(text)
        if m:
            await self._countdown(updater, min(int(m.group(1)), MAX_COUNTDOWN))
            return

        await self._echo(updater, message, text)

    async def _echo(self, updater: TaskUpdater, message: Message, text: str) -> None:
        await updater.start_work()
        pieces = _chunks(text, CHUNK_COUNT)
        extra = _describe_other_parts(message)
        artifact_id = f'echo-{updater.task_id}'
        for i, piece in enumerate(pieces):
            parts = [Part(root=TextPart(text=piece))]
            last = i == len(pieces) - 1
            if last:
                parts += [Part(root=TextPart(text='\n' + line)) for line in extra]
            await updater.add_artifact(
                parts,
                artifact_id=artifact_id,
                name='echo',
                append=i > 0,
                last_chunk=last,
            )
        await updater.complete()

    async def _countdown(self, updater: TaskUpdater, n: int) -> None:
        self._running[updater.task_id] = updater
        try:
            await updater.start_work(updater.new_agent_message([Part(root=TextPart(text=f'countdown {n}'))]))
            for remaining in range(n - 1, -1, -1):
                await asyncio.sleep(1)
                if remaining == 0:
                    break
                await updater.update_status(
                    TaskState.working,
                    updater.new_agent_message([Part(root=TextPart(text=str(remaining)))]),
                )
            await updater.complete(updater.new_agent_message([Part(root=TextPart(text='liftoff'))]))
        except RuntimeError:
            # TaskUpdater refuses updates after a terminal state (canceled).
            log.info('countdown %s stopped: task already terminal', updater.task_id)
        finally:
            self._running.pop(updater.task_id, None)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id = context.task_id
        assert task_id is not None
        updater = self._running.pop(task_id, None)
        if updater is None:
            # Not running (e.g. waiting for input): answer on the queue we got.
            updater = TaskUpdater(event_queue, task_id, context.context_id or '')
        await updater.cancel()


def build_card(host: str, jsonrpc_port: int, rest_port: int, grpc_port: int) -> AgentCard:
    jsonrpc_url = f'http://{host}:{jsonrpc_port}/'
    rest_url = f'http://{host}:{rest_port}'
    grpc_url = f'{host}:{grpc_port}'  # bare host:port: what grpc.aio.insecure_channel() takes
    return AgentCard(
        name='python-sdk-demo',
        description='Demo agent on the official A2A Python SDK (interop peer)',
        version='0.3.26',
        protocol_version='0.3.0',
        url=jsonrpc_url,
        preferred_transport=TransportProtocol.jsonrpc,
        additional_interfaces=[
            AgentInterface(transport=TransportProtocol.jsonrpc, url=jsonrpc_url),
            AgentInterface(transport=TransportProtocol.http_json, url=rest_url),
            AgentInterface(transport=TransportProtocol.grpc, url=grpc_url),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        # True so that REST `/v1/card` and gRPC GetAgentCard exist and the SDK
        # clients really call them (the extended card is the same card).
        supports_authenticated_extended_card=True,
        skills=[
            AgentSkill(id='echo', name='Echo', description='Echoes the text back as artifact chunks', tags=['demo']),
            AgentSkill(id='interview', name='Interview', description='Asks for your name (input-required)', tags=['demo']),
            AgentSkill(id='countdown', name='Countdown', description='countdown N: one update per second', tags=['demo']),
        ],
    )


class _Uvicorn(uvicorn.Server):
    """uvicorn server that announces itself once its sockets are serving."""

    def __init__(self, config: uvicorn.Config, announce: str) -> None:
        super().__init__(config)
        self._announce = announce

    def install_signal_handlers(self) -> None:  # we handle signals ourselves
        pass

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if not self.should_exit:
            print(self._announce, flush=True)


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--host', default='127.0.0.1')
    ap.add_argument('--jsonrpc-port', type=int, default=0)
    ap.add_argument('--rest-port', type=int, default=0)
    ap.add_argument('--grpc-port', type=int, default=0)
    ap.add_argument('--log-level', default='warning')
    args = ap.parse_args()
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr)

    # Bind everything first so the card can carry the real ports.
    jsonrpc_sock = _bind(args.host, args.jsonrpc_port)
    rest_sock = _bind(args.host, args.rest_port)
    grpc_server = grpc.aio.server()
    grpc_port = grpc_server.add_insecure_port(f'{args.host}:{args.grpc_port}')
    if grpc_port == 0:
        print(f'cannot bind grpc on {args.host}:{args.grpc_port}', file=sys.stderr)
        return 2
    jsonrpc_port = jsonrpc_sock.getsockname()[1]
    rest_port = rest_sock.getsockname()[1]

    card = build_card(args.host, jsonrpc_port, rest_port, grpc_port)
    push_http = httpx.AsyncClient(timeout=5)
    handler = DefaultRequestHandler(
        agent_executor=DemoAgentExecutor(),
        task_store=InMemoryTaskStore(),
        push_config_store=(store := InMemoryPushNotificationConfigStore()),
        push_sender=BasePushNotificationSender(push_http, store),
    )

    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(card, handler), grpc_server)
    jsonrpc_app = A2AStarletteApplication(agent_card=card, http_handler=handler).build()
    rest_app = A2ARESTFastAPIApplication(agent_card=card, http_handler=handler).build()

    servers = [
        _Uvicorn(
            uvicorn.Config(jsonrpc_app, log_level=args.log_level, lifespan='off'),
            f'listening jsonrpc http://{args.host}:{jsonrpc_port}/',
        ),
        _Uvicorn(
            uvicorn.Config(rest_app, log_level=args.log_level, lifespan='off'),
            f'listening http+json http://{args.host}:{rest_port}',
        ),
    ]

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    await grpc_server.start()
    print(f'listening grpc {args.host}:{grpc_port}', flush=True)
    tasks = [
        asyncio.create_task(servers[0].serve(sockets=[jsonrpc_sock])),
        asyncio.create_task(servers[1].serve(sockets=[rest_sock])),
    ]
    stopper = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
    rc = 0
    for t in done:
        if t is not stopper and t.exception() is not None:
            print(f'server failed: {t.exception()!r}', file=sys.stderr)
            rc = 1
    for s in servers:
        s.should_exit = True
    await asyncio.wait(tasks, timeout=10)
    await grpc_server.stop(grace=2)
    await push_http.aclose()
    return rc


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
