#!/usr/bin/env python3
"""A TCP relay on 127.0.0.1 that holds each request from the client for a fixed delay before it
passes it on to a server on 127.0.0.1, as a network with that round trip would: every request
waits once, the answers come back at once. For the figures of a layout streamed from far away
(bench/layout_latency.py); loopback alone answers in well under a millisecond.

Usage: python3 bench/latency_relay.py SERVER_PORT DELAY_MS   (prints its port, then serves)
"""
import asyncio
import sys


async def pipe(reader, writer, delay):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if delay > 0:
                await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main(server_port, delay):
    async def relay(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", server_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer, delay),
                             pipe(server_reader, client_writer, 0.0))

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2]) / 1000.0))
