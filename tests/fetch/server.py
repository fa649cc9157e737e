#!/usr/bin/env python3
"""Test server for `tpuprof fetch` and `tpuprof capture` (issue 5).

Python standard library only. Listens on 127.0.0.1 with a free port (written
to --port-file) and emulates, from ../shared/docs/endpoint-facts.md:

  * the TensorBoard profile plugin and standalone XProf, by version
    (--mode tb-2.4.0, tb-2.15.2, tb-2.18.0, xprof-2.20.0, xprof-2.21.5, ...):
    /tools (<2.9) or /runs + /run_tools (2.9+, /run_tools 500 before /runs
    until 2.22), /hosts as strings (<2.18) or objects (2.18+), tool names
    with ^ (<2.19.1), /module_list (2.19.1+), graph_viewer type=pb (2.19.5+),
    /version (2.21.5+), gzip on every plugin answer (2.15+), HTML and 200 for
    unknown routes (standalone XProf), /data/environment (TensorBoard),
    /capture_profile with errors as 200 (<2.19.3) or 500;
  * a GCS JSON API (/storage/v1/...): object lists with prefix and paging,
    media downloads with ranges, a bearer-token check (--token);
  * a logdir served as static files under /static/ with HTML listings;
  * faults (--fault): slow answers (runs, a file, a capture), a reset in the
    middle of a body, 500s,
    429, wrong content type, HTML with 200, truncated gzip, an endless body,
    hostile run, host and module names, a TensorBoard whose profile plugin
    did not load (no-plugin: its routes 404, /data/environment answers).

It builds its logdir under --root from the captures in --captures (symbolic
links, nothing is copied into the project) and logs one line per request to
--log: method, path and query, and the Range, Authorization and
Accept-Encoding it saw (the token itself is not logged).
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import socket
import ssl
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BUCKET = "tpuprof-test"
PAGE_SIZE = 2

# run -> [(host file name, capture path relative to --captures)]
LOGDIR = {
    "plugins/profile/2024_06_01_10_00_00": [
        ("tpu_inference_2.xplane.pb",
         "tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb"),
        ("34.83.195.179_6003.xplane.pb",
         "gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb"),
    ],
    "plugins/profile/2024_05_01_09_00_00": [
        ("tw003.xplane.pb", "gpu-mi300x-jax-gemm/tw003.xplane.pb"),
    ],
    "train/plugins/profile/2023_01_01_00_00_00": [
        ("tw003.xplane.pb", "gpu-mi300x8-jax-conv3d/tw003.xplane.pb"),
    ],
}
CAPTURED_RUN = "plugins/profile/2024_07_01_00_00_00"
# --chunked: a run holding a chunked capture (.xplane.riegeli, issue 27)
CHUNKED_RUN = "chunked/plugins/profile/2024_04_01_00_00_00"
CAPTURED_FILE = "gpu-mi300x-jax-elementwise/tw003.xplane.pb"
GOLDEN_DIR = "xprof-json-tpu-v5-jax-training"
GOLDEN_RUN = "tpu-training"
GOLDEN_HOST = "tpu_training"

HOSTILE_RUNS = ["../../x", "/etc/y"]
HOSTILE_HOSTS = ["../../h", "/etc/y", "a\nb", "ALL_HOSTS"]
HOSTILE_MODULES = ["../evil(1)", "ok(2)", ".hidden(3)"]


# ---- a protobuf wire reader: embedded HLO modules of an XSpace ----

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield f, wt, v


def map_values(entry):
    key = val = None
    for f, _, v in fields(entry):
        if f == 1:
            key = v
        elif f == 2:
            val = v
    return key, val


def embedded_modules(xspace):
    """[(name(program_id), HloProto bytes)] from /host:metadata."""
    out, seen = [], set()
    for f, _, plane in fields(xspace):
        if f != 1:
            continue
        name, stat_names, metas = None, {}, []
        for pf, _, pv in fields(plane):
            if pf == 2:
                name = pv.decode("utf-8", "replace")
                if name != "/host:metadata":
                    break      # its lines (field 3) follow: skip them
            elif pf == 4:
                metas.append(map_values(pv)[1])
            elif pf == 5:
                sid, sm = map_values(pv)
                for sf, _, sv in fields(sm or b""):
                    if sf == 2:
                        stat_names[sid] = sv.decode("utf-8", "replace")
        if name != "/host:metadata":
            continue
        hlo_ids = {k for k, v in stat_names.items() if v in ("Hlo Proto", "HLO Proto")}
        pid_ids = {k for k, v in stat_names.items() if v == "program_id"}
        for em in metas:
            mid, hlo, pid = 0, None, None
            for ef, _, ev in fields(em or b""):
                if ef == 1:
                    mid = ev
                elif ef == 5:
                    sid, val = None, None
                    for xf, _, xv in fields(ev):
                        if xf == 1:
                            sid = xv
                        elif xf in (3, 4, 6):
                            val = xv
                    if sid in hlo_ids and isinstance(val, bytes):
                        hlo = val
                    elif sid in pid_ids and isinstance(val, int):
                        pid = val
            if hlo is None:
                continue
            pid = mid if pid is None else pid
            if pid in seen:
                continue
            seen.add(pid)
            mname = "module"
            for hf, _, hv in fields(hlo):
                if hf == 1:
                    for mf, _, mv in fields(hv):
                        if mf == 1:
                            mname = mv.decode("utf-8", "replace")
                    break
            out.append(("%s(%d)" % (mname, pid), hlo))
    return out


# ---- the emulated server ----

def vtuple(s):
    return tuple(int(x) for x in s.split("."))


def etag(data):
    """A strong ETag of a file's bytes, as a server gives one."""
    return '"%s"' % hashlib.sha1(data).hexdigest()[:16]


class State:
    def __init__(self, args):
        self.args = args
        kind, _, ver = args.mode.partition("-")
        self.plugin = kind in ("tb", "xprof")
        self.standalone = kind == "xprof"
        self.v = vtuple(ver) if self.plugin else (0, 0, 0)
        self.fault = args.fault or ""
        self.lock = threading.Lock()
        self.runs_listed = False
        self.counts = {}
        self.root = os.path.join(os.path.abspath(args.root), "logs")
        self.captures = os.path.abspath(args.captures)
        self.chunked = args.chunked
        self.build_logdir()
        self.golden = self.load_golden()

    def once(self, key):
        """True the first time key is seen."""
        with self.lock:
            n = self.counts.get(key, 0)
            self.counts[key] = n + 1
            return n == 0

    def build_logdir(self):
        logdir = dict(LOGDIR)
        if self.chunked:
            logdir[CHUNKED_RUN] = [("tpu_chunked.xplane.riegeli",
                                    os.path.abspath(self.chunked))]
        for run, files in logdir.items():
            d = os.path.join(self.root, run)
            os.makedirs(d, exist_ok=True)
            for name, src in files:
                dst = os.path.join(d, name)
                if not os.path.lexists(dst):
                    os.symlink(os.path.join(self.captures, src), dst)
            # XProf 2.11+ writes <module>(<id>).hlo_proto.pb on first use.
            if self.plugin and self.v >= (2, 11, 0):
                for name, _ in files:
                    if name.endswith(".riegeli"):
                        continue   # modules are read from .xplane.pb only
                    with open(os.path.join(d, name), "rb") as f:
                        mods = embedded_modules(f.read())
                    for mname, hlo in mods:
                        with open(os.path.join(d, mname + ".hlo_proto.pb"), "wb") as f:
                            f.write(hlo)

    def load_golden(self):
        g = {}
        d = os.path.join(self.captures, GOLDEN_DIR)
        prefix = "data_%s_" % GOLDEN_RUN
        for fn in sorted(os.listdir(d)):
            m = re.match(re.escape(prefix) + r"([a-z_]+?)_" + GOLDEN_HOST +
                         r"(?:_(.*)_(\d+)_)?\.json\.gz$", fn)
            if not m:
                continue
            tool, mod, pid = m.groups()
            key = (tool, "%s(%s)" % (mod, pid) if mod else None)
            with open(os.path.join(d, fn), "rb") as f:
                g[key] = f.read()
        return g

    # -- the plugin's view of the logdir --

    def run_dirs(self):
        """frontend run name -> directory (None for the golden run)."""
        out = {}
        for dirpath, dirnames, _ in os.walk(self.root):
            dirnames.sort()
            rel = os.path.relpath(dirpath, self.root)
            parts = rel.split(os.sep)
            if len(parts) >= 3 and parts[-3:-1] == ["plugins", "profile"]:
                tb = "/".join(parts[:-3])
                out[(tb + "/" if tb else "") + parts[-1]] = dirpath
        if self.standalone:
            out[GOLDEN_RUN] = None
        if "hostile" in self.fault:
            for r in HOSTILE_RUNS:
                out[r] = None
        return out

    def hosts(self, run):
        if "hostile" in self.fault:
            return list(HOSTILE_HOSTS)
        d = self.run_dirs().get(run)
        if d is None:
            return [GOLDEN_HOST] if run == GOLDEN_RUN else []
        # a host's capture: .xplane.pb, or chunked (.xplane.riegeli)
        return sorted(re.sub(r"\.xplane\.(pb|riegeli)$", "", f)
                      for f in os.listdir(d)
                      if f.endswith(".xplane.pb") or f.endswith(".xplane.riegeli"))

    def modules(self, run):
        if "hostile" in self.fault:
            return list(HOSTILE_MODULES)
        d = self.run_dirs().get(run)
        if d is None:
            return sorted(m for (_, m) in self.golden if m) if run == GOLDEN_RUN else []
        return sorted(f[:-len(".hlo_proto.pb")] for f in os.listdir(d)
                      if f.endswith(".hlo_proto.pb"))

    def caret(self):
        return self.v < (2, 19, 1)

    def tools(self, run):
        if self.v < (2, 9, 0):
            names = ["overview_page", "input_pipeline_analyzer", "kernel_stats",
                     "memory_profile", "pod_viewer", "tensorflow_stats",
                     "trace_viewer"]
        else:
            names = ["overview_page", "trace_viewer", "input_pipeline_analyzer",
                     "framework_op_stats", "memory_profile", "op_profile"]
            if self.v >= (2, 19, 0):
                names += ["hlo_stats", "roofline_model"]
            if self.modules(run):
                names += ["graph_viewer", "memory_viewer"]
        return [n + "^" if self.caret() else n for n in names]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "tpuprof-test-server"

    def log_message(self, fmt, *args):
        pass

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass

    @property
    def st(self):
        return self.server.state

    # -- sending --

    def send(self, status, body, ctype, headers=(), gz=False):
        if isinstance(body, str):
            body = body.encode()
        if gz:
            body = gzip.compress(body, mtime=0)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if gz:
            self.send_header("Content-Encoding", "gzip")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def reset(self, status, body, ctype, cut):
        """Headers for the whole body, `cut` bytes of it, then a TCP reset."""
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("ETag", etag(body))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:cut])
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def endless(self, ctype, first=b"\x0a"):
        """A body that does not end (until 10 s or 2 GiB)."""
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        chunk = first + b"\x00" * 65535
        start, sent = time.time(), 0
        try:
            while time.time() - start < 10 and sent < (2 << 30):
                self.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass

    def file_body(self, path, ctype, name):
        """A file with ranges; faults aimed at `name`."""
        with open(path, "rb") as f:
            data = f.read()
        fault = self.st.fault
        if fault == "slow-file" and name.endswith("tpu_inference_2.xplane.pb"):
            time.sleep(5)
        if fault == "endless" and name.endswith("tpu_inference_2.xplane.pb"):
            return self.endless(ctype)
        if fault == "html-file" and name.endswith("tpu_inference_2.xplane.pb"):
            return self.send(200, "<!doctype html><title>Sign in</title>", "text/html")
        if fault == "close-short" and name.endswith("tpu_inference_2.xplane.pb"):
            # no length given, half the bytes, then the connection closed:
            # the end of a body as HTTP/1.0 marks it
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            self.close_connection = True
            return
        rng = self.headers.get("Range")
        if (fault == "reset-always" or (fault == "reset-once" and not rng and
                                        self.st.once("reset:" + name))) \
                and name.endswith("tpu_inference_2.xplane.pb"):
            return self.reset(200, data, ctype, len(data) // 2)
        m = re.match(r"bytes=(\d+)-$", rng or "")
        # a range of an object that changed since: the whole object
        if m and self.headers.get("If-Range") not in (None, etag(data)):
            m = None
        if m:
            start = int(m.group(1))
            if start >= len(data):
                return self.send(416, "", "text/plain",
                                 [("Content-Range", "bytes */%d" % len(data))])
            return self.send(206, data[start:], ctype, [
                ("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data))),
                ("Accept-Ranges", "bytes"), ("ETag", etag(data))])
        self.send(200, data, ctype, [("Accept-Ranges", "bytes"), ("ETag", etag(data))])

    # -- routing --

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        q = {k: v[0] for k, v in urllib.parse.parse_qs(u.query, keep_blank_values=True).items()}
        auth = self.headers.get("Authorization")
        if auth is None:
            a = "-"
        elif auth == "Bearer " + (self.server.args.token or ""):
            a = "bearer-ok"
        else:
            a = "bearer-bad"
        with self.st.lock:
            with open(self.server.args.log, "a") as log:
                log.write("GET %s range=%s auth=%s ae=%s%s\n" % (
                    self.path, self.headers.get("Range") or "-", a,
                    self.headers.get("Accept-Encoding") or "-",
                    " x-proxy-key=" + self.headers["X-Proxy-Key"]
                    if "X-Proxy-Key" in self.headers else ""))
        path = urllib.parse.unquote(u.path)
        if u.path.startswith("/storage/v1/"):
            return self.gcs(u.path, q, a)
        if path.startswith("/static/"):
            return self.static(path[len("/static/"):])
        if not self.st.plugin:
            return self.send(404, "Not found", "text/plain")
        return self.plugin(path, q)

    do_HEAD = do_GET

    # -- static files --

    def static(self, rel):
        full = os.path.normpath(os.path.join(self.st.root, "..", rel))
        if not full.startswith(os.path.dirname(self.st.root)):
            return self.send(403, "Forbidden", "text/plain")
        if os.path.isdir(full):
            if not rel.endswith("/") and rel:
                return self.send(301, "", "text/plain",
                                 [("Location", "/static/" + urllib.parse.quote(rel) + "/")])
            items = []
            for n in sorted(os.listdir(full)):
                slash = "/" if os.path.isdir(os.path.join(full, n)) else ""
                items.append('<li><a href="%s%s">%s%s</a></li>' % (
                    urllib.parse.quote(n), slash, n, slash))
            page = ('<!DOCTYPE HTML><html><body><h1>Directory listing</h1>'
                    '<a href="../">Parent</a><a href="?C=N;O=D">sort</a>'
                    '<a href="http://example.com/x.xplane.pb">elsewhere</a>'
                    '<ul>%s</ul></body></html>' % "".join(items))
            return self.send(200, page, "text/html; charset=utf-8")
        if os.path.isfile(full):
            return self.file_body(full, "application/octet-stream", rel)
        self.send(404, "File not found", "text/plain")

    # -- GCS JSON API --

    def gcs_error(self, code, msg):
        self.send(code, json.dumps({"error": {"code": code, "message": msg}}),
                  "application/json; charset=UTF-8")

    def gcs_objects(self):
        base = os.path.dirname(self.st.root)
        objs = []
        for dirpath, dirnames, files in os.walk(self.st.root):
            dirnames.sort()
            for fn in sorted(files):
                full = os.path.join(dirpath, fn)
                objs.append((os.path.relpath(full, base).replace(os.sep, "/"), full))
        if self.st.fault == "hostile":
            evil = "logs/plugins/profile/2024_06_01_10_00_00/"
            src = os.path.join(self.st.root, "plugins/profile/2024_05_01_09_00_00/tw003.xplane.pb")
            objs += [(evil + "../../../escape.xplane.pb", src),
                     ("logs/plugins/profile/../up.xplane.pb", src),
                     ("logs/plugins/profile/r\nun/h\nost.xplane.pb", src)]
        if self.st.fault == "name-clash":    # "a b" listed before "a_b"
            run = "logs/plugins/profile/2024_06_01_10_00_00/"
            objs += [(run + "a b.xplane.pb", os.path.join(self.st.captures,
                                                          "gpu-mi300x-jax-gemm/tw003.xplane.pb")),
                     (run + "a_b.xplane.pb", os.path.join(self.st.captures,
                                                          "gpu-mi300x-jax-attention/tw003.xplane.pb"))]
        if self.st.fault == "dup-listing":   # one object listed twice
            objs += [o for o in objs if o[0].endswith("tpu_inference_2.xplane.pb")]
        return sorted(objs)

    def gcs(self, raw_path, q, auth):
        if self.server.args.token and auth != "bearer-ok":
            msg = "Invalid Credentials"
            if self.st.fault == "echo-token":     # servers may quote it back
                msg += ": " + (self.headers.get("Authorization") or "")
            return self.gcs_error(401, msg)
        m = re.match(r"/storage/v1/b/([^/]+)/o(?:/(.+))?$", raw_path)
        if not m or urllib.parse.unquote(m.group(1)) != BUCKET:
            return self.gcs_error(404, "The specified bucket does not exist.")
        objs = self.gcs_objects()
        if m.group(2) is None:
            prefix = q.get("prefix", "")
            names = [n for n, _ in objs if n.startswith(prefix)]
            start = int(q.get("pageToken", "0") or 0)
            page = names[start:start + PAGE_SIZE]
            doc = {"kind": "storage#objects", "items": [
                {"name": n, "size": str(os.path.getsize(dict(objs)[n])),
                 "generation": "1700000000000001", "bucket": BUCKET}
                for n in page]}
            if start + PAGE_SIZE < len(names):
                doc["nextPageToken"] = str(start + PAGE_SIZE)
            if not page:
                del doc["items"]
            return self.send(200, json.dumps(doc), "application/json; charset=UTF-8")
        name = urllib.parse.unquote(m.group(2))
        full = dict(objs).get(name)
        if full is None:
            return self.gcs_error(404, "No such object: %s/%s" % (BUCKET, name))
        if q.get("alt") != "media":
            return self.send(200, json.dumps({"name": name}), "application/json")
        if q.get("generation") not in (None, "1700000000000001"):
            return self.gcs_error(404, "No such object generation")
        self.file_body(full, "application/octet-stream", name)

    # -- the profile plugin --

    def plugin(self, path, q):
        st = self.st
        gz = st.v >= (2, 15, 0)
        prefix = "/data/plugin/profile"
        if st.standalone:
            route = path[len(prefix):] if path.startswith(prefix) else path
        elif path.rstrip("/") == "/data/environment":
            return self.environment()
        elif path.startswith(prefix + "/") and st.fault != "no-plugin":
            route = path[len(prefix):]
        else:
            return self.send(404, "Not found", "text/plain")
        route = route.rstrip("/") or "/"
        handler = {
            "/tools": self.r_tools if st.v < (2, 9, 0) else None,
            "/runs": self.r_runs if st.v >= (2, 9, 0) else None,
            "/run_tools": self.r_run_tools if st.v >= (2, 9, 0) else None,
            "/hosts": self.r_hosts,
            "/data": self.r_data,
            "/module_list": self.r_module_list if st.v >= (2, 19, 1) else None,
            "/version": self.r_version if st.v >= (2, 21, 5) else None,
            "/capture_profile": self.r_capture,
        }.get(route)
        if handler is None:
            if st.standalone:
                return self.send(200, "<!doctype html><html><head><title>XProf"
                                 "</title></head><body><app-root></app-root></body></html>",
                                 "text/html; charset=utf-8", gz=gz)
            return self.send(404, "Not found", "text/plain")
        handler(q, gz)

    def json_ok(self, doc, gz):
        self.send(200, json.dumps(doc, sort_keys=True), "application/json", gz=gz)

    def error500(self, gz):
        self.send(500, "<!doctype html><title>500 Internal Server Error</title>"
                  "<h1>Internal Server Error</h1>", "text/html; charset=utf-8", gz=gz)

    def no_data(self, gz):
        body = "No Data" if self.st.v >= (2, 15, 2) else "404 Not Found"
        self.send(404, body, "text/plain", gz=gz)

    def environment(self):
        st, a = self.st, self.server.args
        loc = {"local": st.root, "gs": "gs://%s/logs" % BUCKET,
               "unreadable": "/nonexistent/tpuprof/logs"}.get(a.data_location)
        doc = {"window_title": "", "experiment_name": "",
               "experiment_description": "", "creation_time": 0}
        if loc:
            doc["data_location"] = loc
        if st.v >= (2, 5, 0):
            doc["version"] = "%d.%d.%d" % st.v
        self.send(200, json.dumps(doc, sort_keys=True), "application/json")

    def r_version(self, q, gz):
        self.send(200, "%d.%d.%d" % self.st.v, "text/plain", gz=gz)

    def r_tools(self, q, gz):
        st = self.st
        self.json_ok({r: st.tools(r) for r in st.run_dirs()}, gz)

    def r_runs(self, q, gz):
        st = self.st
        # redirects: to the same server under another host name (another
        # origin to a client: headers meant for this one must not follow),
        # or to this same origin
        if st.fault == "redirect-elsewhere" and "moved" not in q:
            return self.send(302, "", "text/plain", [(
                "Location", "http://localhost:%d/data/plugin/profile/runs?moved=1" %
                self.server.server_address[1])])
        if st.fault == "redirect-ftp":
            return self.send(302, "", "text/plain", [("Location", "ftp://127.0.0.1/runs")])
        if st.fault == "redirect-loop":
            return self.send(302, "", "text/plain", [("Location", "/data/plugin/profile/runs")])
        if st.fault == "redirect-same" and "moved" not in q:
            return self.send(302, "", "text/plain",
                             [("Location", "/data/plugin/profile/runs?moved=1")])
        if st.fault == "slow-runs":
            time.sleep(5)
        if st.fault == "500-runs" or (st.fault == "500-once" and st.once("runs")):
            return self.error500(gz)
        if st.fault == "html-runs":
            return self.send(200, "<!doctype html><title>Sign in</title>", "text/html", gz=gz)
        runs = sorted(st.run_dirs())
        if st.v >= (2, 15, 2):
            runs.sort(reverse=True)
        with st.lock:
            st.runs_listed = True
        self.json_ok(runs, gz)

    def r_run_tools(self, q, gz):
        st = self.st
        if st.v < (2, 22, 0) and (not st.runs_listed or q.get("run") not in st.run_dirs()):
            return self.error500(gz)   # KeyError: /runs was not called first
        self.json_ok(st.tools(q["run"]), gz)

    def r_hosts(self, q, gz):
        st = self.st
        run, tag = q.get("run"), q.get("tag")
        if st.fault == "429-once" and st.once("hosts"):
            return self.send(429, "slow down", "text/plain", [("Retry-After", "0")], gz=gz)
        if tag is None and st.v < (2, 19, 5):
            return self.error500(gz)
        if run not in st.run_dirs():
            return self.error500(gz)
        if tag and tag.rstrip("^") in ("memory_viewer", "graph_viewer") and st.v < (2, 19, 5):
            names = st.modules(run)
        else:
            names = st.hosts(run)
        if st.fault == "sloppy-hosts" and len(names) > 1:
            names = ["ALL_HOSTS"] + names
        doc = [{"hostname": n} for n in names] if st.v >= (2, 18, 0) else names
        if st.fault == "wrong-type":
            return self.send(200, json.dumps(doc), "text/plain", gz=gz)
        self.json_ok(doc, gz)

    def r_module_list(self, q, gz):
        self.send(200, ",".join(self.st.modules(q.get("run"))), "text/plain", gz=gz)

    def r_data(self, q, gz):
        st = self.st
        run, tag, host = q.get("run"), q.get("tag", ""), q.get("host")
        if run not in st.run_dirs() or tag not in st.tools(run):
            return self.no_data(gz)
        base = tag.rstrip("^")
        module = q.get("module_name") or host
        if base == "graph_viewer":
            if q.get("type") != "pb" or st.v < (2, 19, 5):
                return self.send(200, "graph of %s" % module, "text/plain", gz=gz)
            return self.module_pb(run, module, gz)
        per_module = base == "memory_viewer"
        if per_module and module not in st.modules(run):
            return self.no_data(gz)
        if not per_module and host not in st.hosts(run):
            return self.no_data(gz)
        if st.fault == "data-500":   # a converter's failure (plugin 2.15.2+)
            return self.send(500, "ValueError: conversion failed for host", "text/plain", gz=gz)
        if st.fault == "truncated-gzip" and base == "op_profile":
            body = gzip.compress(b'{"byProgram": {"children": []}}' * 50, mtime=0)
            return self.send(200, body[:len(body) // 2], "application/json",
                             [("Content-Encoding", "gzip")])
        if run == GOLDEN_RUN:
            blob = st.golden.get((base, module if per_module else None))
            if blob is None:
                return self.no_data(gz)
            if gz:
                return self.send(200, blob, "application/json", [("Content-Encoding", "gzip")])
            return self.send(200, gzip.decompress(blob), "application/json")
        doc = {"emulated": base, "run": run, "host": module if per_module else host}
        self.json_ok(doc, gz)

    def module_pb(self, run, module, gz):
        st = self.st
        if "hostile" in st.fault:
            return self.send(200, b"\x0a\x02\x0a\x00", "application/octet-stream", gz=gz)
        d = st.run_dirs().get(run)
        path = d and os.path.join(d, module + ".hlo_proto.pb")
        if not path or not os.path.isfile(path):
            return self.no_data(gz)
        with open(path, "rb") as f:
            self.send(200, f.read(), "application/octet-stream", gz=gz)

    def r_capture(self, q, gz):
        st = self.st
        addr = q.get("service_addr", "")
        if st.fault == "slow-capture":
            time.sleep(5)
        err_status = 500 if st.v >= (2, 19, 3) else 200
        if not re.match(r"^[^:/,]+:\d+(,[^:/,]+:\d+)*$", addr):
            return self.send(err_status, json.dumps({"error": 'Could not interpret "%s" as a host-port pair.' % addr}),
                             "application/json", gz=gz)
        if addr.endswith(":1"):
            return self.send(err_status, json.dumps({"error": "empty trace result."}),
                             "application/json", gz=gz)
        if st.fault != "no-new-run":
            d = os.path.join(st.root, CAPTURED_RUN)
            os.makedirs(d, exist_ok=True)
            dst = os.path.join(d, addr.split(",")[0].replace(":", "_") + ".xplane.pb")
            if not os.path.lexists(dst):
                os.symlink(os.path.join(st.captures, CAPTURED_FILE), dst)
        self.json_ok({"result": "Capture profile successfully. Please refresh."}, gz)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that gave up (a size limit, a timeout) is expected.
        if not isinstance(sys.exc_info()[1], (OSError, ssl.SSLError)):
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", default="none")
    ap.add_argument("--fault", default="")
    ap.add_argument("--captures", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--token", default="")
    ap.add_argument("--data-location", default="none",
                    choices=["none", "local", "gs", "unreadable"])
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--chunked", metavar="FILE",
                    help="also serve FILE as the chunked capture "
                    "tpu_chunked.xplane.riegeli of run " + CHUNKED_RUN)
    args = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.args = args
    srv.state = State(args)
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*args.tls)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
