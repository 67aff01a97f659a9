#!/usr/bin/env python3
"""Self-test of python_agent.py with the SDK's own clients, over all three transports.

Starts python_agent.py on free ports, reads its three `listening ...` lines
(30 s timeout), checks its card (preferredTransport JSONRPC, additionalInterfaces
listing JSONRPC, HTTP+JSON and GRPC with URLs that answer), then runs
jsonrpc_client_test.py, grpc_client_test.py and rest_client_test.py against it
with --sdk-server (the SDK server's known deviations are QUIRKs, not failures),
and stops the agent.

Output: its own PASS/FAIL lines, the sub-scripts' output indented, and one
`RESULT python_agent_selftest passed=N failed=M` line counting its own steps
plus all sub-script steps.

Usage: python_agent_selftest.py [--keep-logs]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import sys
import tempfile

from pathlib import Path

import grpc
import httpx

from a2a.grpc import a2a_pb2, a2a_pb2_grpc

from _common import Runner, check

HERE = Path(__file__).resolve().parent
LISTEN_RE = re.compile(r'^listening (jsonrpc|http\+json|grpc) (\S+)\s*$')
STARTUP_TIMEOUT = 30.0
SCRIPT_TIMEOUT = 300.0
RESULT_RE = re.compile(r'^RESULT (\S+) passed=(\d+) failed=(\d+)\s*$')


async def spawn_agent(log_dir: Path) -> asyncio.subprocess.Process:
    with open(log_dir / 'python_agent.err', 'wb') as err:
        return await asyncio.create_subprocess_exec(
            sys.executable, str(HERE / 'python_agent.py'), '--host', '127.0.0.1',
            stdout=asyncio.subprocess.PIPE, stderr=err, cwd=str(HERE))


async def read_listening(proc: asyncio.subprocess.Process, log_dir: Path) -> dict[str, str]:
    """Read stdout until all three `listening` lines arrived (bounded by STARTUP_TIMEOUT)."""
    urls: dict[str, str] = {}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STARTUP_TIMEOUT
    assert proc.stdout is not None
    while len(urls) < 3:
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise TimeoutError(f'python_agent.py did not print 3 listening lines in {STARTUP_TIMEOUT:.0f}s (got {urls})')
        line = await asyncio.wait_for(proc.stdout.readline(), remaining)
        if not line:
            raise RuntimeError(f'python_agent.py exited (rc={await proc.wait()}) before listening; '
                               f'see {log_dir / "python_agent.err"}')
        text = line.decode().rstrip()
        print(f'  agent: {text}')
        m = LISTEN_RE.match(text)
        if m:
            check(m.group(1) not in urls, f'{m.group(1)} announced twice')
            urls[m.group(1)] = m.group(2)
    return urls


async def stop_agent(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), 15)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()


async def run_script(r: Runner, name: str, args: list[str], log_dir: Path) -> None:
    """Run a sub-script; fold its step counts into ours."""
    print(f'--- {name} {" ".join(args)}', flush=True)
    with open(log_dir / f'{name}.err', 'wb') as err:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(HERE / f'{name}.py'), *args,
            stdout=asyncio.subprocess.PIPE, stderr=err, cwd=str(HERE))
        assert proc.stdout is not None
        counted = False
        try:
            async with asyncio.timeout(SCRIPT_TIMEOUT):
                while line := await proc.stdout.readline():
                    text = line.decode().rstrip('\n')
                    m = RESULT_RE.match(text)
                    if m:
                        r.passed += int(m.group(2))
                        r.failed += int(m.group(3))
                        counted = True
                    print(f'    {text}', flush=True)
                rc = await proc.wait()
        except TimeoutError:
            proc.kill()
            await proc.wait()
            print(f'FAIL {name}: timed out after {SCRIPT_TIMEOUT:.0f}s', flush=True)
            r.failed += 1
            return
    if rc != 0 and not counted:
        print(f'FAIL {name}: exited {rc} without a RESULT line (stderr: {log_dir / f"{name}.err"})', flush=True)
        r.failed += 1
    elif rc != 0:
        print(f'  {name} exited {rc}; its stderr (tracebacks) is in {log_dir / f"{name}.err"}')
        sys.stderr.write((log_dir / f'{name}.err').read_text(errors='replace')[-4000:])


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--keep-logs', action='store_true')
    args = ap.parse_args()

    r = Runner('python_agent_selftest')
    log_dir = Path(tempfile.mkdtemp(prefix='a2a-interop-selftest-'))
    proc = None
    try:
        proc = await spawn_agent(log_dir)
        urls = await r.step('agent_starts_and_announces_3_listeners', lambda: read_listening(proc, log_dir),
                            timeout=STARTUP_TIMEOUT + 5)
        if urls is None:
            return r.finish()
        jsonrpc_url, rest_url, grpc_target = urls['jsonrpc'], urls['http+json'], urls['grpc']

        async def card_step() -> None:
            async with httpx.AsyncClient(timeout=10) as http:
                card = (await http.get(f'{jsonrpc_url.rstrip("/")}/.well-known/agent-card.json')).json()
                check(card.get('preferredTransport') == 'JSONRPC', f'preferredTransport {card.get("preferredTransport")!r}')
                check(card.get('url') == jsonrpc_url, f'card url {card.get("url")!r} != {jsonrpc_url!r}')
                ifaces = {i['transport']: i['url'] for i in card.get('additionalInterfaces', [])}
                print(f'  additionalInterfaces: {json.dumps(ifaces)}')
                check(set(ifaces) == {'JSONRPC', 'HTTP+JSON', 'GRPC'}, f'interfaces {sorted(ifaces)}')
                check(ifaces['JSONRPC'] == jsonrpc_url, 'JSONRPC interface url differs from the listener')
                check(ifaces['HTTP+JSON'].rstrip('/') == rest_url.rstrip('/'), 'HTTP+JSON url differs from the listener')
                check(ifaces['GRPC'] == grpc_target, 'GRPC url differs from the listener')
                # Each advertised URL answers its protocol.
                rpc = (await http.post(ifaces['JSONRPC'], json={
                    'jsonrpc': '2.0', 'id': 1, 'method': 'tasks/get', 'params': {'id': 'nope'}})).json()
                check(rpc.get('error', {}).get('code') == -32001, f'JSONRPC tasks/get unknown: {rpc}')
                rest = await http.get(f'{ifaces["HTTP+JSON"].rstrip("/")}/v1/tasks/nope')
                check(rest.status_code == 404, f'REST GET /v1/tasks/nope: HTTP {rest.status_code}')
                rest_card = await http.get(f'{ifaces["HTTP+JSON"].rstrip("/")}/v1/card')
                check(rest_card.status_code == 200 and rest_card.json().get('name') == card['name'],
                      f'REST GET /v1/card: HTTP {rest_card.status_code}')
            async with grpc.aio.insecure_channel(ifaces['GRPC']) as ch:
                pb = await a2a_pb2_grpc.A2AServiceStub(ch).GetAgentCard(a2a_pb2.GetAgentCardRequest(), timeout=10)
            check(pb.name == card['name'], f'gRPC GetAgentCard name {pb.name!r}')

        await r.step('card_lists_three_interfaces_that_answer', card_step)

        await run_script(r, 'jsonrpc_client_test', [jsonrpc_url, '--sdk-server'], log_dir)
        await run_script(r, 'grpc_client_test', [grpc_target, '--card-url', jsonrpc_url, '--sdk-server'], log_dir)
        await run_script(r, 'rest_client_test', [rest_url, '--card-url', jsonrpc_url, '--sdk-server'], log_dir)

        async def still_alive_step() -> None:
            check(proc.returncode is None, f'python_agent.py died during the tests (rc={proc.returncode})')

        await r.step('agent_survived', still_alive_step)
    finally:
        if proc is not None:
            await stop_agent(proc)
        failed = r.failed > 0
        if failed:
            err = (log_dir / 'python_agent.err')
            if err.exists():
                sys.stderr.write('--- python_agent.py stderr (tail)\n' + err.read_text(errors='replace')[-4000:])
        if args.keep_logs or failed:
            print(f'  logs kept in {log_dir}')
        else:
            shutil.rmtree(log_dir, ignore_errors=True)
    return r.finish()


if __name__ == '__main__':
    os.chdir(HERE)
    sys.exit(asyncio.run(main()))
