"""Small helpers shared by the reliability scripts (python3 standard library only).

A blocking RESP2 client for the control socket, RESP request encoding, and a reader of a
process's memory figures from /proc.
"""

import os
import socket
import time


def request(*words):
    """Bytes of one RESP request (an array of bulk strings)."""
    out = [b"*%d\r\n" % len(words)]
    for word in words:
        data = word if isinstance(word, bytes) else str(word).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def send_reply(before, after):
    """The exact reply bytes of a successful SEND: the array [from, to]."""
    a, b = str(before).encode(), str(after).encode()
    return b"*2\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(a), a, len(b), b)


class Closed(Exception):
    """The daemon closed the connection (or it broke)."""


class Client:
    """A blocking control connection (Unix socket path or host:port)."""

    def __init__(self, address, timeout=20.0):
        if "/" in address:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(address)
        else:
            host, port = address.rsplit(":", 1)
            self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.buffer = b""

    def close(self):
        self.sock.close()

    def send_raw(self, data):
        try:
            self.sock.sendall(data)
        except OSError as error:
            raise Closed(str(error)) from error

    def call(self, *words):
        self.send_raw(request(*words))
        return self.read()

    def _fill(self):
        try:
            chunk = self.sock.recv(65536)
        except OSError as error:
            raise Closed(str(error)) from error
        if not chunk:
            raise Closed("connection closed by the daemon")
        self.buffer += chunk

    def _line(self):
        while True:
            end = self.buffer.find(b"\r\n")
            if end >= 0:
                line, self.buffer = self.buffer[:end], self.buffer[end + 2:]
                return line
            self._fill()

    def read(self):
        """The next reply: str for +simple, ('error', text), int, bytes/None, list/None."""
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return ("error", rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            length = int(rest)
            if length < 0:
                return None
            while len(self.buffer) < length + 2:
                self._fill()
            data, self.buffer = self.buffer[:length], self.buffer[length + 2:]
            return data
        if kind == b"*":
            count = int(rest)
            return None if count < 0 else [self.read() for _ in range(count)]
        raise Closed("malformed reply %r" % line)


def connect_when_ready(address, seconds=15.0, process=None):
    """Connects once the daemon answers PING; raises if it never does (or exits)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            client = Client(address, timeout=5)
            if client.call("PING") == "PONG":
                return client
            client.close()
        except (OSError, Closed):
            pass
        if process is not None and process.poll() is not None:
            raise RuntimeError("millraced exited with status %s" % process.returncode)
        if time.monotonic() > deadline:
            raise RuntimeError("millraced did not answer on %s" % address)
        time.sleep(0.05)


def memory_kib(pid):
    """VmRSS and VmHWM (peak RSS) of a process, in KiB, from /proc/PID/status."""
    figures = {}
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                figures[key] = int(value.split()[0])
    return figures["VmRSS"], figures["VmHWM"]


def stats(client):
    """STATS as a dict."""
    text = client.call("STATS").decode()
    return dict(line.split(":", 1) for line in text.split("\r\n") if ":" in line)


def raise_fd_limit(wanted):
    """Raises RLIMIT_NOFILE to at least `wanted` if the hard limit allows."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def mib(kib):
    return "%.1f MiB" % (kib / 1024.0)


def env_int(name, default):
    return int(os.environ.get(name, default))
