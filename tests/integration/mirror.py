#!/usr/bin/env python3
"""A Debian mirror served from a local folder, for the download tests
(t_fetch_mirror, t_study_kernel_fetch): python3 mirror.py ROOT PORTFILE LOG RULES

Serves ROOT on 127.0.0.1 (a free port, written to PORTFILE once it
listens) and appends each request's path to LOG.  RULES, read again on
every request, holds lines "REGEX ACTION": the first regex that matches
the path decides what happens to it:
  hang      accept, then never answer (a mirror that hangs)
  truncate  send the headers of the whole file and half its bytes, then
            close (a download cut short)
  404       answer 404 Not Found
anything else is served whole.  Standard library only."""
import http.server
import os
import re
import sys
import threading
import time
import urllib.parse

root, portfile, log, rules = sys.argv[1:5]
lock = threading.Lock()


def action(path):
    try:
        with open(rules) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and re.search(parts[0], path):
                    return parts[1]
    except OSError:
        pass
    return "serve"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        with lock, open(log, "a") as f:
            f.write(path + "\n")
        what = action(path)
        if what == "hang":
            time.sleep(3600)
            return
        file = os.path.join(root, path.lstrip("/"))
        if what == "404" or not os.path.isfile(file):
            body = b"not found\n"
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        with open(file, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Last-Modified", self.date_time_string(int(os.path.getmtime(file))))
        if what == "truncate":
            self.send_header("Connection", "close")
        self.end_headers()
        if what == "truncate":
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data)

    def do_HEAD(self):
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % server.server_address[1])
os.rename(portfile + ".tmp", portfile)
server.serve_forever()
