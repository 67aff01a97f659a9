#!/usr/bin/env python3
"""The official A2A Python SDK (a2a-sdk 0.3.26) client drives a server over JSON-RPC.

Usage: jsonrpc_client_test.py BASE_URL [--sdk-server]

BASE_URL is where the agent card lives (`BASE_URL/.well-known/agent-card.json`).
The JSON-RPC endpoint used is the one the card advertises, picked by the SDK's
ClientFactory exactly as a real SDK peer would.

--sdk-server: the server under test is the Python SDK itself (python_agent.py);
tolerate its documented deviations (printed as QUIRK lines, see README.md).

SDK client APIs used: A2ACardResolver (card); ClientFactory + ClientConfig ->
BaseClient for send_message (streaming and not), get_task, cancel_task,
resubscribe, set_task_callback, get_task_callback; the deprecated A2AClient
for one send. No SDK 0.3.26 client has list/delete push-config methods, so
those two go through the SDK's lower-level JsonRpcTransport (its generic
`_send_request`) with the SDK's own typed request/response models.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
import warnings

from typing import Any

import httpx

from a2a.client import A2ACardResolver, A2AClient, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientJSONRPCError
from a2a.client.transports.jsonrpc import JsonRpcTransport
from a2a.types import (
    AgentCard,
    DeleteTaskPushNotificationConfigParams,
    DeleteTaskPushNotificationConfigRequest,
    DeleteTaskPushNotificationConfigResponse,
    JSONRPCErrorResponse,
    ListTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigResponse,
    MessageSendParams,
    SendMessageRequest,
    Task,
    TaskPushNotificationConfig,
    TransportProtocol,
)

from _common import Runner, check, check_card, find_artifact, need, parts_text, state_of, user_message
from _steps import run_task_steps


class JsonRpcErrors:
    @staticmethod
    async def _expect(call, code: int, what: str) -> None:
        try:
            result = await call
        except A2AClientJSONRPCError as e:
            check(e.error.code == code, f'{what}: error code {e.error.code} ({e.error.message!r}), expected {code}')
            print(f'  {what}: JSON-RPC error {e.error.code} {e.error.message!r}')
            return
        raise AssertionError(f'{what}: expected JSON-RPC error {code}, got {result!r}')

    async def not_cancelable(self, call, what: str) -> None:
        await self._expect(call, -32002, what)

    async def not_found(self, call, what: str) -> None:
        await self._expect(call, -32001, what)


async def run(base_url: str, sdk_server: bool) -> int:
    r = Runner('jsonrpc_client_test', sdk_server)
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
        async def card_step() -> AgentCard:
            card = await A2ACardResolver(http, base_url).get_agent_card()
            check_card(card, 'well-known card')
            pref = card.preferred_transport or 'JSONRPC'
            check(pref == 'JSONRPC' or any(i.transport == 'JSONRPC' for i in card.additional_interfaces or []),
                  f'card offers no JSONRPC interface (preferred={pref!r})')
            print(f'  card: name={card.name!r} url={card.url!r} preferred={pref!r} '
                  f'interfaces={[(i.transport, i.url) for i in card.additional_interfaces or []]}')
            return card

        card = await r.step('card', card_step)
        if card is None:
            return r.finish()

        # streaming=False -> BaseClient uses message/send; streaming=True ->
        # message/stream (and allows resubscribe). Both take the URL from the card.
        def make(streaming: bool):
            cfg = ClientConfig(streaming=streaming, httpx_client=http,
                               supported_transports=[TransportProtocol.jsonrpc])
            return ClientFactory(cfg).create(card)

        sync_client, stream_client = make(False), make(True)

        async def legacy_step() -> None:
            # The deprecated A2AClient sends no `configuration` at all, so this also
            # checks that JSON-RPC treats a missing `blocking` as blocking.
            with warnings.catch_warnings():
                warnings.simplefilter('ignore', DeprecationWarning)
                legacy = A2AClient(http, agent_card=card)
            resp = await legacy.send_message(SendMessageRequest(
                id=str(uuid.uuid4()), params=MessageSendParams(message=user_message('legacy client'))))
            check(not isinstance(resp.root, JSONRPCErrorResponse), f'error: {resp.root}')
            task = resp.root.result
            check(isinstance(task, Task), f'expected a Task, got {type(task).__name__}')
            check(state_of(task) == 'completed',
                  f'state {state_of(task)!r}: a send without configuration.blocking must block')
            check(parts_text(find_artifact(task, 'echo').parts) == 'legacy client', 'legacy echo text')

        await r.step('legacy_client_send_default_blocking', legacy_step)

        out = await run_task_steps(r, sync_client, stream_client, JsonRpcErrors())

        # ---- push config list / delete: lower-level transport ------------------------
        raw = JsonRpcTransport(http, card)
        push_task, ids = out['push_task'], out['push_ids']
        counts: dict[str, int] = {}

        async def list_configs(task_id: str) -> list[TaskPushNotificationConfig]:
            req = ListTaskPushNotificationConfigRequest(
                id=str(uuid.uuid4()), params=ListTaskPushNotificationConfigParams(id=task_id))
            data = await raw._send_request(req.model_dump(mode='json', exclude_none=True))  # noqa: SLF001
            resp = ListTaskPushNotificationConfigResponse.model_validate(data)
            check(not isinstance(resp.root, JSONRPCErrorResponse), f'list error: {resp.root}')
            return resp.root.result

        async def list_step() -> None:
            t = need(push_task, 'push task')
            configs = await list_configs(t.id)
            listed = sorted(c.push_notification_config.id for c in configs)
            print(f'  list: {listed}')
            check(all(c.task_id == t.id for c in configs), 'list has configs of another task')
            check(ids, 'no config was set')
            for cid in ids.values():
                check(cid in listed, f'{cid!r} not listed: {listed}')
            counts['before'] = len(configs)

        await r.step('push_config_list', list_step)

        async def delete_step() -> None:
            t = need(push_task, 'push task')
            before = need(counts.get('before'), 'list count')
            req = DeleteTaskPushNotificationConfigRequest(
                id=str(uuid.uuid4()),
                params=DeleteTaskPushNotificationConfigParams(id=t.id, push_notification_config_id='cfg-a'))
            data: dict[str, Any] = await raw._send_request(req.model_dump(mode='json', exclude_none=True))  # noqa: SLF001
            check('error' not in data, f'delete failed: {data}')
            if 'result' not in data:
                # JSON-RPC 2.0 requires the member. The SDK server drops `result: null`
                # (model_dump(exclude_none=True)), so the SDK's own response model rejects it.
                r.quirk('push_config_delete', f'success response without "result": {data}',
                        'the SDK server drops result:null; its own client model rejects that')
            else:
                check(data['result'] is None, f'delete must answer "result": null, got {data}')
                DeleteTaskPushNotificationConfigResponse.model_validate(data)
            after = await list_configs(t.id)
            listed = sorted(c.push_notification_config.id for c in after)
            print(f'  list after delete: {listed}')
            check(len(after) == before - 1, f'list went from {before} to {len(after)} configs')
            check('cfg-a' not in listed, 'cfg-a still listed after delete')
            for key, cid in ids.items():
                if key != 'a':
                    check(cid in listed, f'delete removed {cid!r} too')

        await r.step('push_config_delete_then_list_shrinks', delete_step)
        # No client.close(): it would close the shared httpx client, which the
        # `async with` owns.
    return r.finish()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('base_url')
    ap.add_argument('--sdk-server', action='store_true',
                    help='server under test is the Python SDK: tolerate its known deviations')
    args = ap.parse_args()
    return asyncio.run(run(args.base_url, args.sdk_server))


if __name__ == '__main__':
    sys.exit(main())
