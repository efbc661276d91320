#!/usr/bin/env python3
"""Slow and idle clients against `roost serve --env production` (issue: connection
limits). Holds N partial request heads from 127.0.0.1 while a normal client on
127.0.0.2 asks for a pre-rendered list, then stops the server with only idle
connections open. Prints one line per figure; a benchmark, not a test.

usage: bench/slow_clients.py [--partial 300] [--fd-limit 256] [--roost target/release/roost]
"""
import argparse, os, resource, signal, socket, subprocess, sys, tempfile, time

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--partial", type=int, default=300)
    ap.add_argument("--fd-limit", type=int, default=256)
    ap.add_argument("--header-timeout", type=float, default=10.0)
    ap.add_argument("--roost", default="target/release/roost")
    args = ap.parse_args()
    roost = os.path.abspath(args.roost)
    work = tempfile.mkdtemp(prefix="roost-slow-")
    env = dict(os.environ, RUST_LOG="warn")
    subprocess.run([roost, "db", "init", "--db", f"{work}/roost.db"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([roost, "generate", "--db", f"{work}/roost.db", "--out", f"{work}/site"], check=True, stdout=subprocess.DEVNULL)
    key = subprocess.run([roost, "keys", "create", "--name", "bench", "--auth-db", f"{work}/auth.db"],
                         check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    port = 18000 + os.getpid() % 1000
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (args.fd_limit, args.fd_limit))
    server = subprocess.Popen([roost, "serve", "--env", "production", "--db", f"{work}/roost.db",
                               "--site", f"{work}/site", "--auth-db", f"{work}/auth.db",
                               "--listen", f"127.0.0.1:{port}",
                               "--header-timeout", str(args.header_timeout), "--rate-limit", "1000"],
                              preexec_fn=limit, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close(); break
        except OSError:
            time.sleep(0.1)
    held, refused = [], 0
    for _ in range(args.partial):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /api/v0/chapters/ HTTP/1.1\r\nHo")
        held.append(s)
    time.sleep(0.5)
    open_now = 0
    for s in held:
        s.setblocking(False)
        try:
            data = s.recv(1)
            if data == b"":
                refused += 1
            else:
                open_now += 1
        except BlockingIOError:
            open_now += 1
        except OSError:
            refused += 1
        s.setblocking(True)
    print(f"partial connections sent: {args.partial}; held open by the server: {open_now}; closed at once (over the per-address cap): {refused}")
    # A normal client from another address.
    times = []
    for _ in range(20):
        t = time.monotonic()
        c = socket.socket(); c.bind(("127.0.0.2", 0)); c.settimeout(5)
        c.connect(("127.0.0.1", port))
        c.sendall(f"GET /api/v0/chapters/ HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\nConnection: close\r\n\r\n".encode())
        body = b""
        while True:
            chunk = c.recv(65536)
            if not chunk: break
            body += chunk
        c.close()
        assert body.startswith(b"HTTP/1.1 200"), body[:100]
        times.append(time.monotonic() - t)
    times.sort()
    print(f"normal request from 127.0.0.2 meanwhile: median {times[len(times)//2]*1000:.1f} ms, max {times[-1]*1000:.1f} ms (20 requests)")
    t = time.monotonic()
    closed = 0
    deadline = t + args.header_timeout + 5
    for s in held:
        try:
            while True:
                s.settimeout(max(0.01, deadline - time.monotonic()))
                if s.recv(4096) == b"":
                    closed += 1
                    break
        except socket.timeout:
            pass
        except OSError:
            closed += 1
    print(f"partial connections closed by the header timeout ({args.header_timeout:g} s): {closed} of {len(held)} within {time.monotonic()-t:.1f} s")
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(50)]
    time.sleep(0.2)
    t = time.monotonic()
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)
    print(f"SIGTERM with {len(idle)} idle connections open: exited in {(time.monotonic()-t)*1000:.0f} ms")
    err = server.stderr.read().decode(errors="replace")
    if "Too many open files" in err:
        print("the server logged 'Too many open files'")
    for s in held + idle:
        s.close()

if __name__ == "__main__":
    main()
