"""Shared helpers for the interop test scripts (step runner, assertions, builders).

Every script prints one line per step:
    PASS <step>
    FAIL <step>: <reason>          (traceback on stderr)
    QUIRK <step>: <what>           (a tolerated, documented deviation of the Python SDK *server*;
                                    only with --sdk-server)
and ends with
    RESULT <script> passed=N failed=M
which run.sh adds up. Exit status is non-zero when any step failed.
"""

from __future__ import annotations

import asyncio
import sys
import time
import traceback
import uuid

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from a2a.types import (
    Artifact,
    Message,
    Part,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatusUpdateEvent,
    TextPart,
)

T = TypeVar('T')

DEFAULT_STEP_TIMEOUT = 30.0
# Webhook URLs for push-config CRUD: nothing listens there (discard port); the
# tests never trigger a delivery on purpose.
WEBHOOK_A = 'http://127.0.0.1:9/interop-webhook-a'
WEBHOOK_B = 'http://127.0.0.1:9/interop-webhook-b'

ECHO_TEXT = 'hello interop \u00e9\u00e8 \U0001f30d from the python sdk'
COUNTDOWN_SECONDS = 5
TERMINAL = {'completed', 'canceled', 'failed', 'rejected'}


class StepFailed(AssertionError):
    pass


def check(cond: Any, msg: str) -> None:
    """assert that survives `python -O`."""
    if not cond:
        raise StepFailed(msg)


def need(value: T | None, what: str) -> T:
    """A later step needs data from an earlier one."""
    if value is None:
        raise StepFailed(f'depends on an earlier step that failed ({what})')
    return value


class Runner:
    def __init__(self, script: str, sdk_server: bool = False) -> None:
        self.script = script
        self.sdk_server = sdk_server
        self.passed = 0
        self.failed = 0
        self.quirks = 0

    async def step(
        self,
        name: str,
        fn: Callable[[], Awaitable[T]],
        timeout: float = DEFAULT_STEP_TIMEOUT,
    ) -> T | None:
        t0 = time.monotonic()
        try:
            result = await asyncio.wait_for(fn(), timeout)
        except Exception as e:  # noqa: BLE001 - report every failure as a step failure
            if isinstance(e, asyncio.TimeoutError):
                reason = f'timed out after {timeout:.0f}s'
            else:
                reason = f'{type(e).__name__}: {e}'
            print(f'FAIL {name}: {reason}', flush=True)
            print(f'--- {self.script}: traceback for step {name!r}', file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            self.failed += 1
            return None
        print(f'PASS {name} ({time.monotonic() - t0:.2f}s)', flush=True)
        self.passed += 1
        return result

    def quirk(self, step: str, what: str, why: str = '') -> None:
        """A deviation that only the Python SDK server is allowed (--sdk-server).

        Without --sdk-server it fails the step with `what`; with it, it prints
        `QUIRK <step>: <what> (<why>)` and the step goes on."""
        if not self.sdk_server:
            raise StepFailed(what)
        self.quirks += 1
        print(f'QUIRK {step}: {what}' + (f' ({why})' if why else ''), flush=True)

    def skip(self, step: str, why: str) -> None:
        print(f'SKIP {step}: {why}', flush=True)

    def finish(self) -> int:
        print(f'RESULT {self.script} passed={self.passed} failed={self.failed}', flush=True)
        return 0 if self.failed == 0 else 1


def user_message(
    text: str,
    *,
    task_id: str | None = None,
    context_id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Message:
    return Message(
        role=Role.user,
        parts=[Part(root=TextPart(text=text))],
        message_id=str(uuid.uuid4()),
        task_id=task_id,
        context_id=context_id,
        metadata=metadata,
    )


def parts_text(parts: list[Part] | None) -> str:
    """Text parts joined with no delimiter (artifact chunks are concatenated)."""
    return ''.join(p.root.text for p in parts or [] if isinstance(p.root, TextPart))


def state_of(obj: Task | TaskStatusUpdateEvent) -> str:
    return obj.status.state.value


def find_artifact(task: Task, name: str) -> Artifact:
    arts = [a for a in task.artifacts or [] if a.name == name]
    check(arts, f'no artifact named {name!r} in task {task.id} (artifacts: '
                f'{[a.name for a in task.artifacts or []]})')
    check(len(arts) == 1, f'{len(arts)} artifacts named {name!r}, expected 1')
    return arts[0]


def check_card(card: Any, where: str) -> None:
    check(card.name, f'{where}: card has no name')
    check(card.protocol_version == '0.3.0',
          f'{where}: protocolVersion={card.protocol_version!r}, expected "0.3.0"')
    check(card.capabilities.streaming is True,
          f'{where}: capabilities.streaming={card.capabilities.streaming!r}')
    skill_ids = {s.id for s in card.skills}
    for sid in ('echo', 'interview', 'countdown'):
        check(sid in skill_ids, f'{where}: skill {sid!r} missing (have {sorted(skill_ids)})')


def describe_event(update: Any) -> str:
    if update is None:
        return 'Task'
    if isinstance(update, TaskStatusUpdateEvent):
        return f'status({update.status.state.value}, final={update.final})'
    if isinstance(update, TaskArtifactUpdateEvent):
        return (f'artifact({update.artifact.name}, append={update.append}, '
                f'lastChunk={update.last_chunk}, {parts_text(update.artifact.parts)!r})')
    return type(update).__name__


def check_echo_stream(events: list[tuple[str, Any]], text: str) -> None:
    """events: (state of the aggregated task at that point, update or None for a Task).

    Asserts the demo echo contract: Task first, then status/artifact updates,
    artifact chunks named `echo` whose concatenation is the text with
    lastChunk on the last, and a final `completed` status last.
    """
    summary = ', '.join(describe_event(u) for _, u in events)
    check(events, 'stream produced no events')
    check(events[0][1] is None, f'first event is not a Task: {summary}')
    rest = [u for _, u in events[1:]]
    check(rest, f'no updates after the Task: {summary}')
    for u in rest:
        check(isinstance(u, TaskStatusUpdateEvent | TaskArtifactUpdateEvent),
              f'unexpected event type {type(u).__name__}: {summary}')
    last = rest[-1]
    check(isinstance(last, TaskStatusUpdateEvent) and last.final
          and last.status.state.value == 'completed',
          f'last event is not a final completed status: {summary}')
    for u in rest[:-1]:
        if isinstance(u, TaskStatusUpdateEvent):
            check(not u.final, f'final status before the end: {summary}')
    chunks = [u for u in rest if isinstance(u, TaskArtifactUpdateEvent)]
    check(chunks, f'no artifact updates: {summary}')
    first_chunk = rest.index(chunks[0])
    check(any(isinstance(u, TaskStatusUpdateEvent) and u.status.state.value == 'working'
              for u in rest[:first_chunk]),
          f'no `working` status before the first artifact chunk: {summary}')
    check(all(c.artifact.name == 'echo' for c in chunks),
          f'artifact names {[c.artifact.name for c in chunks]}, expected all "echo"')
    check(len({c.artifact.artifact_id for c in chunks}) == 1,
          f'chunks carry different artifactIds: {[c.artifact.artifact_id for c in chunks]}')
    check(not chunks[0].append, f'first chunk has append={chunks[0].append}')
    check(all(c.append for c in chunks[1:]), f'later chunks not all append=true: {summary}')
    check(chunks[-1].last_chunk is True, f'last chunk has lastChunk={chunks[-1].last_chunk}')
    check(all(not c.last_chunk for c in chunks[:-1]), f'lastChunk before the last chunk: {summary}')
    joined = ''.join(parts_text(c.artifact.parts) for c in chunks)
    check(joined == text, f'chunks join to {joined!r}, expected {text!r}')
