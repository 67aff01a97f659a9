#!/usr/bin/env python3
"""The official A2A Python SDK (a2a-sdk 0.3.26) gRPC client drives a server.

Usage: grpc_client_test.py GRPC_TARGET [--card-url HTTP_BASE] [--sdk-server]

GRPC_TARGET: `host:port` or `http://host:port` (our server prints the latter;
the scheme is stripped for the direct connection because grpc's channel
targets do not take `http://`, see README.md).

--card-url: where the HTTP agent card lives. Adds a step that resolves the
card, lets ClientFactory pick the card's GRPC interface and connects to its URL
*verbatim* with the stock `grpc.aio.insecure_channel` factory - i.e. checks that
the advertised URL works for a Python SDK peer.

--sdk-server: the server is the Python SDK itself (python_agent.py); tolerate
its documented deviations (QUIRK lines, see README.md).

SDK client APIs used: minimal_agent_card + ClientFactory/ClientConfig
(grpc_channel_factory) -> BaseClient over GrpcTransport: get_card (GetAgentCard),
send_message (SendMessage / SendStreamingMessage), get_task, cancel_task,
resubscribe (TaskSubscription), set_task_callback
(CreateTaskPushNotificationConfig), get_task_callback. The SDK gRPC client has no
List/Delete push-config methods (and the SDK gRPC server does not implement
them), so those are not tested here. One informational probe uses the SDK's
generated stub directly (A2AServiceStub) to show the `blocking` default.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import grpc
import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory, minimal_agent_card
from a2a.grpc import a2a_pb2, a2a_pb2_grpc
from a2a.types import TransportProtocol

from _common import Runner, check, check_card, find_artifact, parts_text, state_of, user_message
from _steps import run_task_steps, single


def strip_scheme(target: str) -> str:
    for prefix in ('http://', 'grpc://'):
        if target.startswith(prefix):
            target = target[len(prefix):]
    return target.rstrip('/')


def stock_channel(url: str) -> grpc.aio.Channel:
    """What SDK users write: the URL from the card goes to grpc unchanged."""
    return grpc.aio.insecure_channel(url)


class GrpcErrors:
    async def not_cancelable(self, call, what: str) -> None:
        # v0.3.0 defines no gRPC mapping. The SDK server uses UNIMPLEMENTED, the
        # v1.0 spec FAILED_PRECONDITION; accept both.
        await self._expect(call, {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNIMPLEMENTED}, what)

    async def not_found(self, call, what: str) -> None:
        await self._expect(call, {grpc.StatusCode.NOT_FOUND}, what)

    @staticmethod
    async def _expect(call, codes: set[grpc.StatusCode], what: str) -> None:
        try:
            result = await call
        except grpc.aio.AioRpcError as e:
            check(e.code() in codes, f'{what}: status {e.code()} {e.details()!r}, expected one of {codes}')
            print(f'  {what}: status {e.code().name} {e.details()!r}')
            return
        raise AssertionError(f'{what}: expected a gRPC error {codes}, got {result!r}')


async def run(target: str, card_url: str | None, sdk_server: bool) -> int:
    r = Runner('grpc_client_test', sdk_server)
    direct = strip_scheme(target)

    def make(streaming: bool):
        cfg = ClientConfig(streaming=streaming, supported_transports=[TransportProtocol.grpc],
                           grpc_channel_factory=stock_channel)
        # minimal_agent_card: the SDK's documented bootstrap for gRPC (no
        # well-known card over gRPC); get_card() then calls GetAgentCard.
        return ClientFactory(cfg).create(minimal_agent_card(direct, [TransportProtocol.grpc]))

    sync_client, stream_client = make(False), make(True)

    async def card_step():
        card = await sync_client.get_card()
        check_card(card, 'GetAgentCard')
        await stream_client.get_card()  # BaseClient adopts it: enables streaming/resubscribe
        print(f'  card: name={card.name!r} url={card.url!r} preferred={card.preferred_transport!r} '
              f'interfaces={[(i.transport, i.url) for i in card.additional_interfaces or []]}')
        return card

    card = await r.step('card_get_agent_card', card_step)
    if card is None:
        for c in (sync_client, stream_client):
            await c.close()
        return r.finish()

    if card_url:
        async def card_discovery_step() -> None:
            async with httpx.AsyncClient(timeout=10) as http:
                wk = await A2ACardResolver(http, card_url).get_agent_card()
            grpc_ifaces = [i.url for i in wk.additional_interfaces or [] if i.transport == 'GRPC']
            if wk.preferred_transport == 'GRPC':
                grpc_ifaces.insert(0, wk.url)
            check(grpc_ifaces, 'the well-known card advertises no GRPC interface')
            print(f'  card advertises GRPC at {grpc_ifaces[0]!r}')
            cfg = ClientConfig(streaming=False, supported_transports=[TransportProtocol.grpc],
                               grpc_channel_factory=stock_channel)
            client = ClientFactory(cfg).create(wk)
            try:
                task, _ = await single(client, user_message('via the card'))
            except grpc.aio.AioRpcError as e:
                raise AssertionError(
                    f'the advertised GRPC url {grpc_ifaces[0]!r} does not work with '
                    f'grpc.aio.insecure_channel(url): {e.code().name} {e.details()!r} '
                    '(advertise a bare host:port)') from e
            finally:
                await client.close()
            check(state_of(task) == 'completed', f'state {state_of(task)!r}')
            check(parts_text(find_artifact(task, 'echo').parts) == 'via the card', 'echo text')

        await r.step('card_grpc_url_works_with_stock_channel', card_discovery_step)

    # Informational: what a SendMessage without `configuration` does (a proto3
    # bool has no presence; the SDK server treats it as non-blocking).
    async def blocking_probe() -> None:
        async with grpc.aio.insecure_channel(direct) as ch:
            resp = await a2a_pb2_grpc.A2AServiceStub(ch).SendMessage(a2a_pb2.SendMessageRequest(
                request=a2a_pb2.Message(message_id='probe-blocking', role=a2a_pb2.ROLE_USER,
                                        content=[a2a_pb2.Part(text='countdown 1')])), timeout=10)
        state = a2a_pb2.TaskState.Name(resp.task.status.state) if resp.HasField('task') else 'message'
        print(f'INFO grpc SendMessage without configuration returned {state} '
              f'(non-blocking if not COMPLETED)', flush=True)

    try:
        await asyncio.wait_for(blocking_probe(), 15)
    except Exception as e:  # noqa: BLE001 - informational only
        print(f'INFO grpc blocking probe failed: {type(e).__name__}: {e}', flush=True)

    await run_task_steps(r, sync_client, stream_client, GrpcErrors())
    for c in (sync_client, stream_client):
        await c.close()
    return r.finish()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('target', help='host:port or http://host:port')
    ap.add_argument('--card-url', help='HTTP base URL of the well-known agent card')
    ap.add_argument('--sdk-server', action='store_true')
    args = ap.parse_args()
    return asyncio.run(run(args.target, args.card_url, args.sdk_server))


if __name__ == '__main__':
    sys.exit(main())
