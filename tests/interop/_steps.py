"""Test steps shared by the JSON-RPC, gRPC and REST client tests.

All three drive the server through the same SDK surface, `a2a.client.BaseClient`
(made by ClientFactory or around an SDK transport); only the error types differ,
which each script supplies as an `Errors` implementation.
"""

from __future__ import annotations

import asyncio

from collections.abc import Awaitable
from typing import Any, Protocol

from a2a.client import Client
from a2a.types import (
    GetTaskPushNotificationConfigParams,
    Message,
    MessageSendConfiguration,
    PushNotificationConfig,
    Task,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskStatusUpdateEvent,
)

from _common import (
    COUNTDOWN_SECONDS,
    ECHO_TEXT,
    WEBHOOK_A,
    WEBHOOK_B,
    Runner,
    check,
    check_echo_stream,
    describe_event,
    find_artifact,
    need,
    parts_text,
    state_of,
    user_message,
)


class Errors(Protocol):
    """How a transport reports the two A2A errors the tests provoke."""

    async def not_cancelable(self, call: Awaitable[Any], what: str) -> None: ...
    async def not_found(self, call: Awaitable[Any], what: str) -> None: ...


async def single(client: Client, message: Message, configuration: MessageSendConfiguration | None = None):
    """Non-streaming send through BaseClient: exactly one (Task, None) or Message."""
    results = [x async for x in client.send_message(message, configuration=configuration)]
    check(len(results) == 1, f'non-streaming send yielded {len(results)} results')
    return results[0]


async def run_task_steps(r: Runner, sync_client: Client, stream_client: Client,
                         errors: Errors) -> dict[str, Any]:
    """send / message reply / stream / get / interview / countdown+resubscribe+cancel /
    errors / push-config set+get. Returns what later transport-specific steps need."""
    out: dict[str, Any] = {}

    # ---- message/send -> completed Task with the echo artifact -----------------
    async def send_step() -> Task:
        res = await single(sync_client, user_message(ECHO_TEXT))
        check(isinstance(res, tuple), f'expected a Task, got {type(res).__name__}')
        task, update = res
        check(update is None, 'non-streaming send returned an update event')
        check(state_of(task) == 'completed', f'state {state_of(task)!r}, expected completed')
        got = parts_text(find_artifact(task, 'echo').parts)
        check(got == ECHO_TEXT, f'artifact text {got!r}, expected {ECHO_TEXT!r}')
        check(task.context_id, 'task has no contextId')
        return task

    echo_task = await r.step('send_echo_completed_task', send_step)

    async def reply_message_step() -> None:
        res = await single(sync_client, user_message('reply as a message', metadata={'reply': 'message'}))
        check(isinstance(res, Message), f'expected a Message, got {type(res).__name__}')
        check(res.role.value == 'agent', f'message role {res.role!r}')
        check(parts_text(res.parts) == 'reply as a message', f'message text {parts_text(res.parts)!r}')

    await r.step('send_reply_message', reply_message_step)

    # ---- streaming ---------------------------------------------------------------
    async def stream_step() -> None:
        events = []
        final_task = None
        async for ev in stream_client.send_message(user_message(ECHO_TEXT)):
            check(isinstance(ev, tuple), f'stream yielded a {type(ev).__name__}, expected task events')
            task, update = ev
            # Copy now: the SDK's ClientTaskManager appends later chunks *into* the
            # first chunk's Artifact object, so the objects we were handed change later.
            events.append((state_of(task), update.model_copy(deep=True) if update else None))
            final_task = task
            check(len(events) < 200, 'more than 200 stream events')
        print('  stream: ' + ', '.join(describe_event(u) for _, u in events))
        check_echo_stream(events, ECHO_TEXT)
        # The SDK client's own aggregation of the chunks must give the text too.
        task = need(final_task, 'stream task')
        check(parts_text(find_artifact(task, 'echo').parts) == ECHO_TEXT, 'aggregated artifact text')

    await r.step('stream_echo', stream_step)

    async def stream_reply_message_step() -> None:
        got = [ev async for ev in stream_client.send_message(
            user_message('streamed message reply', metadata={'reply': 'message'}))]
        check(len(got) == 1 and isinstance(got[0], Message),
              f'expected exactly one Message, got {[type(g).__name__ for g in got]}')
        check(parts_text(got[0].parts) == 'streamed message reply', 'message text')

    await r.step('stream_reply_message', stream_reply_message_step)

    # ---- get with historyLength ----------------------------------------------------
    async def get_history_step() -> None:
        t = need(echo_task, 'echo task')
        got = await sync_client.get_task(TaskQueryParams(id=t.id, history_length=1))
        check(got.id == t.id, f'got task {got.id}, expected {t.id}')
        check(state_of(got) == 'completed', f'state {state_of(got)!r}')
        n = len(got.history or [])
        check(n == 1, f'historyLength=1 returned {n} history messages')

    await r.step('get_task_history_length_1', get_history_step)

    # ---- interview -------------------------------------------------------------------
    async def interview_step() -> None:
        task, _ = await single(sync_client, user_message('interview'))
        check(state_of(task) == 'input-required', f'state {state_of(task)!r}, expected input-required')
        question = parts_text(task.status.message.parts) if task.status.message else ''
        print(f'  question: {question!r}')
        res = await single(sync_client, user_message('Ada', task_id=task.id, context_id=task.context_id))
        check(isinstance(res, tuple), f'follow-up returned {type(res).__name__}')
        done, _ = res
        check(done.id == task.id, f'follow-up answered on task {done.id}, expected {task.id}')
        check(state_of(done) == 'completed', f'follow-up state {state_of(done)!r}')
        texts = ' '.join(parts_text(a.parts) for a in done.artifacts or [])
        check('Ada' in texts, f'no artifact greeting the answer: {texts!r}')

    await r.step('interview_input_required_then_completed', interview_step)

    # ---- countdown: non-blocking send, resubscribe, cancel ------------------------------
    async def countdown_send_step() -> Task:
        task, _ = await single(sync_client, user_message(f'countdown {COUNTDOWN_SECONDS}'),
                               MessageSendConfiguration(blocking=False))
        check(state_of(task) in ('submitted', 'working'), f'non-blocking send returned state {state_of(task)!r}')
        return task

    cd_task = await r.step('countdown_nonblocking_send', countdown_send_step)

    async def resubscribe_step() -> None:
        t = need(cd_task, 'countdown task')
        agen = stream_client.resubscribe(TaskIdParams(id=t.id))
        seen = []
        try:
            for _ in range(10):
                task, update = await asyncio.wait_for(anext(agen), 5)
                seen.append(update)
                if len(seen) == 1:
                    if update is not None:
                        r.quirk('resubscribe', f'first event is {describe_event(update)}, not a Task snapshot',
                                'the Python SDK server only forwards live events')
                    else:
                        check(task.id == t.id, f'snapshot is task {task.id}')
                        check(state_of(task) in ('submitted', 'working'), f'snapshot state {state_of(task)!r}')
                if isinstance(update, TaskStatusUpdateEvent):
                    break
        finally:
            await agen.aclose()
        print('  resubscribe: ' + ', '.join(describe_event(u) for u in seen))
        live = [u for u in seen if isinstance(u, TaskStatusUpdateEvent)]
        check(live, 'no live status update within 10 events')
        check(live[0].task_id == t.id, 'status update for another task')
        check(live[0].status.state.value == 'working', f'live update state {live[0].status.state.value!r}')

    await r.step('resubscribe_snapshot_then_live', resubscribe_step, timeout=COUNTDOWN_SECONDS + 10)

    async def cancel_step() -> None:
        t = need(cd_task, 'countdown task')
        got = await sync_client.cancel_task(TaskIdParams(id=t.id))
        check(got.id == t.id, f'cancel returned task {got.id}')
        check(state_of(got) == 'canceled', f'cancel returned state {state_of(got)!r}')
        again = await sync_client.get_task(TaskQueryParams(id=t.id))
        check(state_of(again) == 'canceled', f'get after cancel: {state_of(again)!r}')

    await r.step('cancel_countdown', cancel_step)

    async def cancel_again_step() -> None:
        t = need(cd_task, 'countdown task')
        await errors.not_cancelable(sync_client.cancel_task(TaskIdParams(id=t.id)), 'cancel again')

    await r.step('cancel_again_not_cancelable', cancel_again_step)

    async def unknown_task_step() -> None:
        await errors.not_found(sync_client.get_task(TaskQueryParams(id='no-such-task-0000')), 'get unknown task')

    await r.step('get_unknown_task_not_found', unknown_task_step)

    # ---- push notification configs (set/get; list/delete are per transport) -------------
    async def push_task_step() -> Task:
        # A fresh, non-terminal task (interview waits for input) to attach configs to.
        task, _ = await single(sync_client, user_message('interview'))
        check(state_of(task) == 'input-required', f'state {state_of(task)!r}')
        return task

    push_task = await r.step('push_config_task', push_task_step)
    out['push_task'] = push_task
    ids: dict[str, str] = {}
    out['push_ids'] = ids

    async def set_with_id_step() -> None:
        t = need(push_task, 'push task')
        cfg = await sync_client.set_task_callback(TaskPushNotificationConfig(
            task_id=t.id, push_notification_config=PushNotificationConfig(id='cfg-a', url=WEBHOOK_A, token='tok-a')))
        check(cfg.task_id == t.id, f'set returned taskId {cfg.task_id}')
        check(cfg.push_notification_config.id == 'cfg-a', f'set returned id {cfg.push_notification_config.id!r}')
        check(cfg.push_notification_config.url == WEBHOOK_A, 'set returned another url')
        ids['a'] = 'cfg-a'

    await r.step('push_config_set_with_id', set_with_id_step)

    async def set_without_id_step() -> None:
        t = need(push_task, 'push task')
        try:
            cfg = await sync_client.set_task_callback(TaskPushNotificationConfig(
                task_id=t.id, push_notification_config=PushNotificationConfig(url=WEBHOOK_B)))
        except Exception as e:  # noqa: BLE001
            # Without --sdk-server this fails the step (r.quirk raises).
            r.quirk('push_config_set_without_id', f'{type(e).__name__}: {e}',
                    'SDK gRPC/REST client sends no id, the SDK server stores id "" and returns '
                    'a name ending in "/", which the SDK client cannot parse')
            return
        cid = cfg.push_notification_config.id
        check(cid, f'set without id returned no id ({cid!r}); the server must assign one')
        check(cid != 'None', 'server took the id "None" from config.name (the SDK gRPC/REST client '
                             'fills name with ".../pushNotificationConfigs/None" when the id is unset)')
        check(cid != 'cfg-a', 'set without id replaced cfg-a')
        check(cfg.push_notification_config.url == WEBHOOK_B, 'set returned another url')
        print(f'  assigned id: {cid!r} (task id: {t.id!r}; the Python SDK uses the task id)')
        ids['b'] = cid

    await r.step('push_config_set_without_id', set_without_id_step)

    async def get_step() -> None:
        t = need(push_task, 'push task')
        urls = {'a': WEBHOOK_A, 'b': WEBHOOK_B}
        check(ids, 'no config was set')
        for key, cid in ids.items():
            cfg = await sync_client.get_task_callback(
                GetTaskPushNotificationConfigParams(id=t.id, push_notification_config_id=cid))
            check(cfg.task_id == t.id, f'get returned taskId {cfg.task_id}')
            got = (cfg.push_notification_config.id, cfg.push_notification_config.url)
            if got != (cid, urls[key]):
                r.quirk('push_config_get', f'get {cid!r} returned {got}',
                        'the SDK server returns the task\'s first config whatever id is asked for')

    await r.step('push_config_get', get_step)
    return out
