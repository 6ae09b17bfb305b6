#!/usr/bin/env python3
"""The chaos soak's path to the reducer: a TCP proxy that plays the reducer's faults.

usage: reducer-proxy.py UPSTREAM_PORT [RCVBUF_BYTES]

Listens on 127.0.0.1 (a free port, printed as "listening PORT") and forwards each connection to
127.0.0.1:UPSTREAM_PORT. One command a line on stdin, each answered "ok COMMAND N" (N: the
connections it touched) once in force:
  pass             forward everything; stalled connections resume, slow ones run at full speed
  stall            a reducer that stops reading: open and new connections are not read (their
                   receive windows close), kept open until "pass"
  slow BYTES       a slow reader: each connection reads at most BYTES a second until "pass"
  refuse           a reducer that is down: the port refuses connections and open ones are reset
  close-early      a reducer that closes every connection right after its handshake: open ones are
                   closed now, new ones 0.3 s after their first bytes, until "pass"
  freeze           a reducer that died hard: the connections open now are frozen for good (nothing
                   read or answered, kept open) while new ones are served
EOF on stdin ends the proxy.

Why Python: the accepted sockets get a small receive buffer (SO_RCVBUF, which neither Node nor
Deno can set), so a connection that is not read stops being acknowledged after a few kilobytes, as
a stuck reducer's does once its buffers fill, instead of after the ~4 MB of loopback buffers.
"""
import socket
import sys
import threading
import time

upstream_port = int(sys.argv[1])
rcvbuf = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
CLOSE_EARLY_DELAY_S = 0.3

lock = threading.Condition()
mode = 'pass'
rate = 0  # bytes a second in 'slow'
connections = set()


class Conn:
    def __init__(self, client):
        self.client = client
        self.upstream = None
        self.frozen = False
        self.closed = False
        self.close_early = mode == 'close-early'

    def close(self, reset=False):
        """Closes both sides once (a reset sends RST to the collector instead of FIN)."""
        with lock:
            if self.closed:
                return
            self.closed = True
            connections.discard(self)
            lock.notify_all()
        if reset:
            try:
                self.client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b'\x01\x00\x00\x00\x00\x00\x00\x00')
            except OSError:
                pass
        for s in (self.client, self.upstream):
            if s is None:
                continue
            try:
                if not (reset and s is self.client):  # a shutdown would send a FIN before the RST
                    s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass


def may_read(conn):
    """Blocks while the connection must not be read; False once it is closed."""
    with lock:
        while not conn.closed and (conn.frozen or mode == 'stall'):
            lock.wait()
        return not conn.closed


def pump(conn, src, dst, from_client):
    try:
        while may_read(conn):
            limit = 65536
            if from_client and mode == 'slow' and rate > 0:
                limit = max(1, min(limit, rate // 10))
            data = src.recv(limit)
            if not data:
                break
            if not may_read(conn):
                return
            dst.sendall(data)
            if from_client and conn.close_early:
                threading.Timer(CLOSE_EARLY_DELAY_S, conn.close).start()
                conn.close_early = False
            if from_client and mode == 'slow' and rate > 0:
                time.sleep(len(data) / rate)
    except OSError:
        pass
    if not conn.frozen:
        conn.close()


def serve(client):
    conn = Conn(client)
    try:
        conn.upstream = socket.create_connection(('127.0.0.1', upstream_port))
    except OSError:
        client.close()  # the reducer is down: so is the connection
        return
    with lock:
        connections.add(conn)
    threading.Thread(target=pump, args=(conn, client, conn.upstream, True), daemon=True).start()
    threading.Thread(target=pump, args=(conn, conn.upstream, client, False), daemon=True).start()


listener = None
port = 0


def listen():
    global listener, port
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Set before listen(): accepted sockets inherit it, and the window scale is chosen from it.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind(('127.0.0.1', port))
    s.listen(64)
    port = s.getsockname()[1]
    listener = s
    threading.Thread(target=accept, args=(s,), daemon=True).start()


def accept(s):
    while True:
        try:
            client, _ = s.accept()
        except OSError:
            return  # closed by "refuse"
        threading.Thread(target=serve, args=(client,), daemon=True).start()


def unlisten():
    global listener
    if listener is not None:
        try:
            listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        listener.close()
        listener = None


def command(line):
    global mode, rate
    words = line.split()
    if not words:
        return None
    name = words[0]
    with lock:
        open_now = [c for c in connections if not c.frozen]
    if name == 'refuse':
        unlisten()
        with lock:
            mode = 'refuse'
        for c in open_now:
            c.close(reset=True)
    elif name == 'freeze':
        with lock:
            for c in open_now:
                c.frozen = True
    elif name == 'close-early':
        with lock:
            mode = 'close-early'
        for c in open_now:
            c.close()
    elif name in ('pass', 'stall', 'slow'):
        with lock:
            if name == 'slow':
                rate = int(words[1])
            mode = name
            lock.notify_all()
        if listener is None:
            listen()
    else:
        return f'error unknown command {name}'
    return f'ok {name} {len(open_now)}'


listen()
print(f'listening {port}', flush=True)
for line in sys.stdin:
    answer = command(line)
    if answer:
        print(answer, flush=True)
