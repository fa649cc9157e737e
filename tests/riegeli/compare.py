#!/usr/bin/python3
"""Every command's JSON on a capture written as .xplane.riegeli equals its
JSON on the .xplane.pb, apart from the source file's own fields (its path,
size on disk, and the chunked-file summary).

    compare.py TPUPROF A.xplane.pb B.xplane.riegeli [COMMAND...]
"""
import json
import subprocess
import sys

# a source's own fields: the file's size, the size of the XSpace bytes
# (re-encoded by the merge: a field written out at its default, say, is
# not written back) and the chunked-file summary
SOURCE_KEYS = {"file_bytes", "bytes", "chunked"}


def run(tpuprof, cmd, path):
    args = [tpuprof, cmd, "--format", "json", path]
    if cmd == "trace":
        args = [tpuprof, "trace", "--format", "json", "-o", "-", path]
    p = subprocess.run(args, capture_output=True)
    text = p.stdout.decode().replace(json.dumps(path)[1:-1], "CAPTURE")
    err = p.stderr.decode().replace(path, "CAPTURE")
    return p.returncode, text, err


def strip(v):
    if isinstance(v, dict):
        source = v.get("path") == "CAPTURE"
        return {k: strip(x) for k, x in v.items()
                if not (source and k in SOURCE_KEYS)}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def main():
    tpuprof, pb, rg = sys.argv[1:4]
    cmds = sys.argv[4:] or ["info", "report", "ops", "memory", "collectives",
                            "fusions", "check", "trace"]
    bad = 0
    for cmd in cmds:
        ra, ta, ea = run(tpuprof, cmd, pb)
        rb, tb, eb = run(tpuprof, cmd, rg)
        try:
            ja, jb = strip(json.loads(ta)), strip(json.loads(tb))
        except ValueError:
            ja, jb = ta, tb
        if ra != rb or ja != jb or ea != eb:
            bad += 1
            print(f"FAIL {cmd} {rg}: exit {ra} vs {rb}")
            if ea != eb:
                print(f"  stderr: {ea!r} vs {eb!r}")
            if ja != jb:
                a = json.dumps(ja, indent=1, sort_keys=True).splitlines()
                b = json.dumps(jb, indent=1, sort_keys=True).splitlines()
                diff = [f"  {x} | {y}" for x, y in zip(a, b) if x != y]
                print("\n".join(diff[:10]))
    print(f"{'ok' if not bad else 'FAIL'}: {rg} ({len(cmds)} commands)")
    return 1 if bad else 0


sys.exit(main())
