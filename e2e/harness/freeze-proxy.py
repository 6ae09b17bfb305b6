#!/usr/bin/env python3
"""A TCP proxy that can make its peer go silent, for the dead-reducer tests (docs/dead-links.md).

usage: freeze-proxy.py UPSTREAM_PORT

Listens on 127.0.0.1 (a free port, printed as "listening PORT") and forwards each connection to
127.0.0.1:UPSTREAM_PORT. A line "freeze" on stdin freezes every connection open at that moment:
kept open, nothing read from it any more, nothing answered (not even a close from upstream), and
answers "frozen N". Connections accepted later are served normally. A line "cut" resets every
frozen connection (SO_LINGER 0: the client gets an RST, as from a peer that rebooted or a firewall
that forgot it) and answers "cut N". A line "stall" stops reading from the clients of every
connection, open or accepted later (kept open, the tap's side untouched: a reducer that stops
reading for a while), until a line "resume"; they answer "stalled N" and "resumed N". EOF on stdin
ends the proxy.

Why Python: the accepted sockets get the smallest receive buffer (SO_RCVBUF, which neither Node
nor Deno can set), so that a frozen connection's receive window closes after ~700 more bytes and
its kernel then acknowledges nothing, as a dead host's does at once. With the default buffer a
paused receiver acknowledges 28-byte heartbeats for 400 to 1,100 of them (13 to 36 minutes at 2 s).
"""
import socket
import struct
import sys
import threading

upstream_port = int(sys.argv[1])

lock = threading.Lock()
connections = []  # {'frozen': Event, 'done': Event, 'sockets': (client, upstream)} per connection
flowing = threading.Event()  # cleared while stalled: nothing is read from the clients
flowing.set()


def pump(src, dst, conn, from_client):
    """Copies src to dst until EOF; once frozen, reads nothing more and answers nothing."""
    try:
        while True:
            if from_client:
                flowing.wait()
            data = src.recv(65536)
            if from_client:
                flowing.wait()  # a read that was under way when the stall began is held too
            if conn['frozen'].is_set():
                break
            if not data:
                conn['done'].set()
                dst.shutdown(socket.SHUT_WR) if from_client else dst.close()
                return
            dst.sendall(data)
    except OSError:
        if conn['frozen'].is_set():
            return
        conn['done'].set()
        for s in (src, dst):
            try:
                s.close()
            except OSError:
                pass
        return
    threading.Event().wait()  # frozen: hold the sockets open, never read again


def serve(client):
    try:
        upstream = socket.create_connection(('127.0.0.1', upstream_port))
    except OSError:
        client.close()
        return
    conn = {'frozen': threading.Event(), 'done': threading.Event(), 'sockets': (client, upstream)}
    with lock:
        connections.append(conn)
    threading.Thread(target=pump, args=(client, upstream, conn, True), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client, conn, False), daemon=True).start()


def accept(listener):
    while True:
        client, _ = listener.accept()
        serve(client)


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
# Set before listen(): accepted sockets inherit it, and the window scale is chosen from it.
listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)  # raised to the kernel's minimum
listener.bind(('127.0.0.1', 0))
listener.listen(16)
threading.Thread(target=accept, args=(listener,), daemon=True).start()
print(f'listening {listener.getsockname()[1]}', flush=True)

for line in sys.stdin:
    if line.strip() == 'freeze':
        with lock:
            open_now = [c for c in connections if not c['frozen'].is_set() and not c['done'].is_set()]
            for conn in open_now:
                conn['frozen'].set()
        print(f'frozen {len(open_now)}', flush=True)
    elif line.strip() == 'cut':
        with lock:
            frozen = [c for c in connections if c['frozen'].is_set() and not c['done'].is_set()]
            for conn in frozen:
                conn['done'].set()
                client, upstream = conn['sockets']
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
                for s in (client, upstream):
                    try:
                        s.close()
                    except OSError:
                        pass
        print(f'cut {len(frozen)}', flush=True)
    elif line.strip() == 'stall':
        flowing.clear()
        with lock:
            n = sum(1 for c in connections if not c['done'].is_set())
        print(f'stalled {n}', flush=True)
    elif line.strip() == 'resume':
        flowing.set()
        with lock:
            n = sum(1 for c in connections if not c['done'].is_set())
        print(f'resumed {n}', flush=True)
