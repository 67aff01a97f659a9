#!/usr/bin/env python3
"""The official A2A Python SDK (a2a-sdk 0.3.26) REST (HTTP+JSON) client drives a server.

Usage: rest_client_test.py REST_BASE_URL [--card-url HTTP_BASE] [--sdk-server]

REST_BASE_URL: the HTTP+JSON base; the SDK client appends `/v1/...`.
--card-url: where the well-known agent card lives (default: REST_BASE_URL,
which is where the SDK's REST app serves it). The card is resolved with
A2ACardResolver; a step lets ClientFactory pick the card's HTTP+JSON interface
and checks that it answers.

--sdk-server: the server is the Python SDK itself (python_agent.py); tolerate
its documented deviations (QUIRK lines, see README.md).

SDK client APIs used: A2ACardResolver, ClientFactory/ClientConfig, and
BaseClient over the SDK's RestTransport: get_card (GET /v1/card when the card
says supportsAuthenticatedExtendedCard), send_message (POST /v1/message:send
and :stream), get_task (GET /v1/tasks/{id}?historyLength=), cancel_task
(POST /v1/tasks/{id}:cancel), resubscribe (GET /v1/tasks/{id}:subscribe),
set_task_callback (POST /v1/tasks/{id}/pushNotificationConfigs),
get_task_callback (GET .../pushNotificationConfigs/{cid}). The SDK REST client
has no list/delete push-config methods (and the SDK REST server answers 500 /
405 for them), so those are not tested here.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import httpx

from a2a.client import A2ACardResolver, BaseClient, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientHTTPError
from a2a.client.transports.rest import RestTransport
from a2a.types import AgentCard, TransportProtocol

from _common import Runner, check, check_card, find_artifact, parts_text, state_of, user_message
from _steps import run_task_steps, single


class RestErrors:
    async def not_cancelable(self, call, what: str) -> None:
        await self._expect(call, 409, what)

    async def not_found(self, call, what: str) -> None:
        await self._expect(call, 404, what)

    @staticmethod
    async def _expect(call, status: int, what: str) -> None:
        try:
            result = await call
        except A2AClientHTTPError as e:
            check(e.status_code == status, f'{what}: HTTP {e.status_code} ({e.message}), expected {status}')
            print(f'  {what}: HTTP {e.status_code}')
            return
        raise AssertionError(f'{what}: expected HTTP {status}, got {result!r}')


async def run(rest_url: str, card_url: str, sdk_server: bool) -> int:
    r = Runner('rest_client_test', sdk_server)
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
        async def resolve_step() -> AgentCard:
            card = await A2ACardResolver(http, card_url).get_agent_card()
            check_card(card, 'well-known card')
            print(f'  card: url={card.url!r} preferred={card.preferred_transport!r} '
                  f'interfaces={[(i.transport, i.url) for i in card.additional_interfaces or []]} '
                  f'supportsAuthenticatedExtendedCard={card.supports_authenticated_extended_card}')
            return card

        card = await r.step('card_well_known', resolve_step)
        if card is None:
            return r.finish()

        # Clients bound to the REST URL we were given (the SDK RestTransport with
        # an explicit url), wrapped in the SDK's BaseClient like ClientFactory does.
        def make(streaming: bool) -> BaseClient:
            cfg = ClientConfig(streaming=streaming, httpx_client=http,
                               supported_transports=[TransportProtocol.http_json])
            return BaseClient(card, cfg, RestTransport(http, card, rest_url), [], [])

        sync_client, stream_client = make(False), make(True)

        async def get_card_step() -> None:
            got = await sync_client.get_card()
            check_card(got, 'RestTransport.get_card')
            how = ('GET /v1/card' if card.supports_authenticated_extended_card
                   else 'cached well-known card (no supportsAuthenticatedExtendedCard)')
            print(f'  get_card via {how}')

        await r.step('card_get_card', get_card_step)

        async def card_interface_step() -> None:
            rest_ifaces = [i.url for i in card.additional_interfaces or [] if i.transport == 'HTTP+JSON']
            if card.preferred_transport == 'HTTP+JSON':
                rest_ifaces.insert(0, card.url)
            check(rest_ifaces, 'the card advertises no HTTP+JSON interface')
            print(f'  card advertises HTTP+JSON at {rest_ifaces[0]!r}')
            cfg = ClientConfig(streaming=False, httpx_client=http, supported_transports=[TransportProtocol.http_json])
            client = ClientFactory(cfg).create(card)
            task, _ = await single(client, user_message('via the card'))
            check(state_of(task) == 'completed', f'state {state_of(task)!r}')
            check(parts_text(find_artifact(task, 'echo').parts) == 'via the card', 'echo text')

        await r.step('card_http_json_url_works', card_interface_step)

        # Informational: POST /v1/message:send without `configuration` (the SDK
        # server treats the absent proto3 bool as non-blocking).
        try:
            resp = await http.post(f'{rest_url.rstrip("/")}/v1/message:send', json={
                'message': {'messageId': 'probe-blocking', 'role': 'ROLE_USER', 'content': [{'text': 'countdown 1'}]}})
            body = resp.json()
            state = body.get('task', {}).get('status', {}).get('state', body)
            print(f'INFO rest message:send without configuration -> HTTP {resp.status_code} {state} '
                  '(non-blocking if not TASK_STATE_COMPLETED)', flush=True)
        except Exception as e:  # noqa: BLE001 - informational only
            print(f'INFO rest blocking probe failed: {type(e).__name__}: {e}', flush=True)

        await run_task_steps(r, sync_client, stream_client, RestErrors())
    return r.finish()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('rest_url')
    ap.add_argument('--card-url', help='HTTP base URL of the well-known agent card (default: rest_url)')
    ap.add_argument('--sdk-server', action='store_true')
    args = ap.parse_args()
    return asyncio.run(run(args.rest_url, args.card_url or args.rest_url, args.sdk_server))


if __name__ == '__main__':
    sys.exit(main())
