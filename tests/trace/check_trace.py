#!/usr/bin/env python3
"""`tpuprof trace` held to the capture, through the test's own Perfetto
reader (trace_dump, protoc-c code from perfetto_subset.proto):

- the reader finds no broken rule (sequence, interning, tracks declared
  before use, BEGIN/END paired and nested per track in time order);
- slices + instants per line = the line's timed events (`tpuprof info`);
- per op on XLA Ops (TPU) or kernel streams (GPU): slice count and summed
  duration = occurrences and total_ps of `tpuprof ops` (durations are ns:
  within 1 ns per occurrence);
- each runtime memory counter's maximum = the runtime peak of
  `tpuprof memory`, and the peak instant says the same; every run of a
  module's peak instruction (`memory`'s peak_instruction) carries a
  compiler peak instant with its peak_bytes, every run of a module with
  no heap-simulator events one at the run's start (`at` "program
  start"), and nothing else does;
- the Chrome JSON output parses and holds the same slices, instants and
  counter values;
- -j 3 (planes on three threads, each with a writer lane) holds the same
  tracks and events as -j 1, and -j 1 writes the same bytes every time;
- hosts share one time base (Task Environment start times), --host,
  --core, --from/--to cut the trace as documented, gzip output works,
  -o onto a FIFO writes into it, a closed pipe ends quietly with exit 141
  (as git and grep; docs/exit-codes.md).

usage: check_trace.py TPUPROF TRACE_DUMP GEN_CAPTURE
"""
import collections
import gzip
import json
import os
import re
import stat
import subprocess
import sys
import tempfile

TPUPROF, DUMP, GEN = sys.argv[1], sys.argv[2], sys.argv[3]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(ROOT, '..', 'shared', 'captures')
DERIVED = {'Name scopes (derived)', 'Memory peaks', 'Compiler memory peaks', 'Advice (derived)'}


def derived(track):
    return (track in DERIVED or track.endswith(' name scopes (derived)') or
            track.endswith(' compiler memory peaks') or track.startswith('Steps (inferred: ') or
            track == 'Steps (group_id)')
LINES = 'Lines'  # each process's one plain track, parent of its line tracks
failures = []
START_PEAKS = {}
ADVICE = {}  # capture -> advice instants  # capture -> program-start compiler peak instants


def process_of(d, t):
    """The process name of track t: its own, or its nearest ancestor's."""
    by_uuid = {u['uuid']: u for u in d['tracks']}
    while 'process_name' not in t:
        t = by_uuid[t['parent']]
    return t['process_name']


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def run(*args):
    return subprocess.run([TPUPROF, *args], check=True, capture_output=True).stdout


def doc(cmd, cap, *extra):
    return json.loads(run(cmd, '--format', 'json', '-q', *extra, cap))


def dump(path):
    p = subprocess.run([DUMP, path], capture_output=True)
    d = json.loads(p.stdout)
    check(p.returncode == 0 and not d['errors'], f'{path}: reader says {d["errors"][:5]}')
    return d


def write(cap, out, *extra):
    subprocess.run([TPUPROF, 'trace', '-q', *extra, cap, '-o', out], check=True)


class Trace:
    """Tracks of a dumped trace by (process, track name)."""

    def __init__(self, d):
        self.d = d
        self.where = {}
        for t in d['tracks']:
            if t['parent'] is not None and t['name'] != LINES:
                self.where[t['uuid']] = (process_of(d, t), t['name'])
        self.events = d['slices'] + d['instants']

    def line_of(self, ev):
        proc, name = self.where[ev['track']]
        return proc, re.sub(r' \(\d+\)$', '', name)


def ordering(cap, tr):
    """Perfetto shows processes and tracks in the capture's order: the
    root descriptor (uuid 0, the file's first packet) sets
    process_ordering EXPLICIT (1), process tracks are ranked 0, 1, ... in
    host and plane order; each process has one plain track `Lines` with
    child_ordering EXPLICIT (3), the parent of all its tracks, ranked
    0, 1, ... as declared, the capture's lines in its line order
    (`tpuprof info`), unmerged (sibling_merge_behavior NONE = 2).
    Returns the process names in rank order."""
    d = tr.d
    check(d['root'] == {'process_ordering': 1, 'packet': 0}, f'{cap}: root descriptor {d["root"]}')
    procs = sorted((t for t in d['tracks'] if 'process_name' in t), key=lambda t: t['rank'])
    check([t['rank'] for t in procs] == list(range(len(procs))),
          f'{cap}: process ranks {[t["rank"] for t in procs]}')
    by_parent = collections.defaultdict(list)
    for t in d['tracks']:
        by_parent[t['parent']].append(t)
    info = doc('info', cap)
    lines = {f"{h['name']} {p['name']}": [ln['display_name'] or ln['name'] for ln in p['lines']
                                          if ln['events'] > ln['aggregated_events']]
             for h in info['hosts'] for p in h['planes']}
    names = [p['process_name'] for p in procs]
    check(names == [n for n in lines if n in names], f'{cap}: processes in rank order {names}')
    for p in procs:
        kids = by_parent[p['uuid']]
        check([(k['name'], k['child_ordering'], k['rank'], k['merge']) for k in kids] ==
              [(LINES, 3, None, None)], f'{cap}: {p["process_name"]}: process children {kids}')
        if len(kids) != 1:
            continue
        tracks = by_parent[kids[0]['uuid']]
        check([t['rank'] for t in tracks] == list(range(len(tracks))) and
              all(t['merge'] == 2 and t['child_ordering'] is None and not by_parent[t['uuid']]
                  for t in tracks), f'{cap}: {p["process_name"]}: line tracks {tracks}')
        shown = [t['name'] for t in tracks if not derived(t['name']) and
                 not re.search(r' \(\d+\)$', t['name']) and not t['counter']]
        check(shown == lines.get(p['process_name']),
              f'{cap}: {p["process_name"]}: tracks {shown}, lines {lines.get(p["process_name"])}')
    return [p['process_name'] for p in procs]


def line_counts(cap, tr):
    info = doc('info', cap)
    got = collections.Counter(tr.line_of(e) for e in tr.events)
    want = collections.Counter()
    for h in info['hosts']:
        for p in h['planes']:
            for ln in p['lines']:
                n = ln['events'] - ln['aggregated_events']
                if n:
                    want[(f"{h['name']} {p['name']}", ln['display_name'] or ln['name'])] += n
    for key, n in want.items():
        check(got[key] == n, f'{cap}: {key}: {got[key]} slices, {n} events')
    for key in got:
        check(key in want or derived(key[1]), f'{cap}: track {key} is no line')
    return sum(want.values())


def op_times(cap, tr):
    ops = doc('ops', cap)
    checked = 0
    for core in ops['cores']:
        proc = f"{core['host']} {core['plane']}"
        if core['source'] == 'xla_ops':
            on = lambda line: line == 'XLA Ops'
            name_of = lambda e: e['name']
        elif core['source'] == 'gpu_kernels':  # kernels name their HLO op
            on = lambda line: line.startswith('Stream #')
            name_of = lambda e: e['args'].get('hlo_op')
        else:
            continue
        count, total, args = collections.Counter(), collections.Counter(), {}
        for e in tr.d['slices'] + tr.d['instants']:
            p, line = tr.line_of(e)
            if p == proc and on(line):
                count[name_of(e)] += 1
                total[name_of(e)] += e.get('dur', 0)
                pid = e['args'].get('program_id')
                args.setdefault((name_of(e), None if pid is None else pid % 2**64), e['args'])
        occ, ps = collections.Counter(), collections.Counter()
        for op in core['ops']:
            occ[op['name']] += op['occurrences']
            ps[op['name']] += op['total_ps']
        for op in core['ops']:  # what the HLO adds: module and source line
            a = args.get((op['name'], int(op['program_id'])), {})
            check(a.get('hlo_module') == op['module'], f"{cap} {proc} {op['name']}: hlo_module {a.get('hlo_module')}, ops {op['module']}")
            if op.get('source'):
                check(a.get('source') == op['source'], f"{cap} {proc} {op['name']}: source {a.get('source')}, ops {op['source']}")
        for name in occ:
            check(count[name] == occ[name], f'{cap} {proc} {name}: {count[name]} slices, {occ[name]} occurrences')
            check(abs(total[name] * 1000 - ps[name]) <= 1000 * occ[name],
                  f'{cap} {proc} {name}: {total[name]} ns, ops {ps[name]} ps')
            checked += 1
    return checked


def steps_same(cap, tr):
    """The derived steps track of each core holds `ops`' inferred steps
    (or its group_id steps): as many, named by position, each as long
    (within 1 ns)."""
    ops = doc('ops', cap)
    n = 0
    for core in ops['cores']:
        group = core.get('steps_source') == 'group_id'
        if core.get('steps_source') != 'inferred' and not group:
            continue
        key = (f"{core['host']} {core['plane']}",
               'Steps (group_id)' if group else f"Steps (inferred: {core['steps_program']})")
        got = sorted((e['ts'], e) for e in tr.d['slices'] if tr.where.get(e['track']) == key)
        want = core['steps']
        check(len(got) == len(want), f'{cap} {key}: {len(got)} step slices, ops {len(want)} steps')
        for i, ((_, e), s) in enumerate(zip(got, want)):
            check(abs(e['dur'] * 1000 - s['duration_ps']) <= 1000, f"{cap} {key} {e['name']}: {e['dur']} ns, ops {s['duration_ps']} ps")
            if group:  # named by position, the group id in an argument
                check(e['name'] == f'step {i}' and e['args'].get('group_id') == int(s['name']),
                      f"{cap} {key}: {e['name']} {e['args']} vs group {s['name']}")
                continue
            check(e['name'] == 'step ' + s['name'], f"{cap} {key}: {e['name']} vs step {s['name']}")
            check(e['args'].get('program_id', 0) % 2**64 == int(core['steps_program_id']), f"{cap} {key}: program_id")
        n += len(got)
    return n


def memory_peaks(cap, tr):
    mem = doc('memory', cap)
    vals = collections.defaultdict(list)
    for c in tr.d['counters']:
        vals[tr.where[c['track']]].append(c['value'])
    peaks = {}
    for e in tr.d['instants']:
        if e['name'] == 'runtime memory peak':
            peaks[(tr.where[e['track']][0], e['args']['memory_id'])] = e['args']['peak_bytes']
    for r in mem['runtime']:
        proc = f"{r['host']} /host:CPU"
        key = (proc, f"Memory {r['memory_id']} bytes in use")
        check(key in vals and max(vals[key]) == r['peak_bytes'],
              f'{cap} {key}: counter max {max(vals.get(key, [0]))}, peak {r["peak_bytes"]}')
        check(peaks.get((proc, r['memory_id'])) == r['peak_bytes'], f'{cap} {key}: peak instant')
    # compiler peaks: an instant at each run of the peak instruction;
    # a module with no heap-simulator events peaks from its start: an
    # instant at each of its runs' starts (XLA Modules events; without
    # that line, each op of another program than the previous one)
    runs, marks = collections.Counter(), collections.Counter()
    starts = collections.Counter()
    procs_with_modules = {tr.line_of(e)[0] for e in tr.d['slices']
                          if tr.line_of(e)[1] == 'XLA Modules'}
    by_line = collections.defaultdict(list)
    for e in tr.d['slices']:
        proc, line = tr.line_of(e)
        if line == 'XLA Modules':
            m = re.search(r'\((\d+)\)$', e['name'])
            if m:
                starts[int(m.group(1))] += 1
        if 'program_id' not in e['args']:
            continue
        pid = e['args']['program_id'] % 2**64
        if line == 'XLA Ops':
            runs[(e['name'], pid)] += 1
        elif line.startswith('Stream #') and 'hlo_op' in e['args']:  # GPU kernels
            runs[(e['args']['hlo_op'], pid)] += 1
        else:
            continue
        if proc not in procs_with_modules:
            by_line[(proc, line)].append((e['ts'], pid))
    for evs in by_line.values():
        last = None
        for _, pid in sorted(evs, key=lambda x: x[0]):
            if pid != last:
                starts[pid] += 1
            last = pid
    for e in tr.d['instants']:
        if e['name'] == 'compiler memory peak':
            a = e['args']
            marks[(a.get('instruction'), a['program_id'] % 2**64, a['peak_bytes'], a.get('at'),
                   a.get('peak_heap_event'))] += 1
    want = collections.Counter()
    for m in mem['modules']:
        key = (m['peak_instruction'], int(m['program_id']))
        if m['peak_instruction'] and runs[key]:
            want[key + (m['peak_bytes'], None, m['peak_heap_event'])] = runs[key]
        elif m['heap_points'] == 0 and starts[key[1]]:
            want[key + (m['peak_bytes'], 'program start', m['peak_heap_event'])] = starts[key[1]]
    check(marks == want, f'{cap}: compiler peak instants {dict(marks)}, want {dict(want)}')
    START_PEAKS[cap] = sum(n for k, n in marks.items() if k[3])
    return len(mem['runtime']), sum(marks.values())


def json_same(cap, tr, tmp):
    out = os.path.join(tmp, 'trace.json')
    write(cap, out, '--format', 'json')
    with open(out, encoding='utf-8') as f:
        j = json.load(f)
    write(cap, out + '.gz', '--format', 'json')
    with gzip.open(out + '.gz', 'rt', encoding='utf-8') as f:
        check(json.load(f) == j, f'{cap}: gzipped JSON differs from the JSON')
    procs, threads, got, counters = {}, {}, collections.Counter(), collections.Counter()
    for e in j['traceEvents']:
        if e['ph'] == 'M' and e['name'] == 'process_name':
            procs[e['pid']] = e['args']['name']
        elif e['ph'] == 'M' and e['name'] == 'thread_name':
            threads[(e['pid'], e['tid'])] = e['args']['name']
    for e in j['traceEvents']:
        if e['ph'] in 'Xi':
            key = (procs[e['pid']], threads[(e['pid'], e['tid'])], e['name'],
                   round(e['ts'] * 1000), round(e.get('dur', 0) * 1000) if e['ph'] == 'X' else None)
            got[key] += 1
        elif e['ph'] == 'C':
            counters[(procs[e['pid']], e['name'], round(e['ts'] * 1000), e['args']['bytes'])] += 1
    want = collections.Counter()
    for e in tr.d['slices']:
        want[tr.where[e['track']] + (e['name'], e['ts'], e['dur'])] += 1
    for e in tr.d['instants']:
        want[tr.where[e['track']] + (e['name'], e['ts'], None)] += 1
    wantc = collections.Counter((tr.where[c['track']][0], tr.where[c['track']][1], c['ts'], c['value'])
                                for c in tr.d['counters'])
    check(got == want, f'{cap}: JSON events differ from the Perfetto trace: '
          f'{list((got - want).items())[:3]} / {list((want - got).items())[:3]}')
    check(counters == wantc, f'{cap}: JSON counters differ')


def time_base(cap, tr):
    """Each host's first event sits at its start-time offset."""
    info = doc('info', cap)
    starts = {h['name']: int(h['capture']['start_unix_ns']) for h in info['hosts']}
    first = {}
    for h in info['hosts']:
        for p in h['planes']:
            for ln in p['lines']:
                if ln['events'] - ln['aggregated_events'] and ln.get('first_start_ps') is not None:
                    ps = (starts[h['name']] - min(starts.values())) * 1000 + ln['first_start_ps']
                    first[h['name']] = min(first.get(h['name'], ps), ps)
    origin = min(first.values())
    seen = {}
    for e in tr.events:
        host = tr.where[e['track']][0].split(' ')[0]
        seen[host] = min(seen.get(host, e['ts']), e['ts'])
    for host, ps in first.items():
        check(seen.get(host) == (ps - origin) // 1000, f'{cap} {host}: first at {seen.get(host)} ns, want {(ps - origin) // 1000}')


def filters(cap, tr, tmp):
    out = os.path.join(tmp, 'cut.pftrace')
    write(cap, out, '--core', 'TPU:1')
    cut = Trace(dump(out))
    procs = {p for p, _ in cut.where.values()}
    check(procs == {'host0 /device:TPU:1'}, f'{cap} --core TPU:1: processes {procs}')
    want = sum(1 for e in tr.events if tr.where[e['track']][0] == 'host0 /device:TPU:1')
    check(len(cut.events) == want, f'{cap} --core TPU:1: {len(cut.events)} events, want {want}')
    # time 0 is the capture's, whatever --core keeps: the same event at the
    # same time (it moved to the core's first event before, so a window
    # read off the whole trace picked other events)
    first = min((e['ts'] for e in tr.events if tr.where[e['track']][0] == 'host0 /device:TPU:1'),
                default=None)
    got = min((e['ts'] for e in cut.events), default=None)
    check(got == first, f'{cap} --core TPU:1: first event at {got} ns, in the whole trace {first}')
    lo, hi = 100000, 200000
    write(cap, out, '--from', '100us', '--to', '200us', '--no-derived')
    cut = Trace(dump(out))
    want = collections.Counter(tr.where[e['track']][0] for e in tr.events
                               if not derived(tr.where[e['track']][1]) and
                               e['ts'] + e.get('dur', 0) >= lo and e['ts'] <= hi)
    got = collections.Counter(cut.where[e['track']][0] for e in cut.events)
    check(got == want and got, f'{cap} --from/--to: {dict(got)} want {dict(want)}')
    check(not cut.d['counters'], f'{cap} --no-derived: counters written')
    # with the derived tracks: an instant (a compiler peak, an advice
    # mark) lies in the window itself. A peak marks the op where it
    # starts; a window from the middle of that op to 1 ns after wrote the
    # peak before the window
    peaks = [e for e in tr.d['instants'] if 'ompiler memory peaks' in tr.where[e['track']][1]]
    for p in peaks[:3]:
        proc = tr.where[p['track']][0]
        ops = [e for e in tr.d['slices'] if e['ts'] == p['ts'] and e.get('dur', 0) > 2 and
               tr.where[e['track']][0] == proc]
        if not ops:
            continue
        a = ops[0]['ts'] + ops[0]['dur'] // 2
        write(cap, out, '--from', f'{a}ns', '--to', f'{a + 1}ns')
        cut = Trace(dump(out))
        outside = [(cut.where[e['track']], e['ts']) for e in cut.d['instants']
                   if not a <= e['ts'] <= a + 1]
        check(not outside, f'{cap} --from {a}ns --to {a + 1}ns: instants outside: {outside[:3]}')


def host_filter(cap, tmp):
    out = os.path.join(tmp, 'host.pftrace')
    write(cap, out, '--host', 'host1')
    cut = Trace(dump(out))
    procs = {p.split(' ')[0] for p, _ in cut.where.values()}
    check(procs == {'host1'}, f'{cap} --host host1: {procs}')


def fifo_output(cap, tmp):
    """-o onto a FIFO (or /dev/null) writes into it; it used to rename a
    temporary file over it, which as root replaced /dev/null itself."""
    fifo = os.path.join(tmp, 'pipe')
    os.mkfifo(fifo)
    reader = subprocess.Popen(['cat', fifo], stdout=subprocess.PIPE)
    rc = subprocess.run([TPUPROF, 'trace', '-q', cap, '-o', fifo], timeout=60).returncode
    try:
        data = reader.communicate(timeout=10)[0]
    except subprocess.TimeoutExpired:
        reader.kill()
        data = b''
    check(rc == 0 and stat.S_ISFIFO(os.stat(fifo).st_mode) and data[:1] == b'\x0a',
          f'-o FIFO: exit {rc}, still a FIFO: {stat.S_ISFIFO(os.stat(fifo).st_mode)}, {len(data)} bytes read')


def closed_pipe(cap):
    """A reader that goes away: the run ends quietly, exit 141 (the writer
    thread's EPIPE seen, not reported as an output failure)."""
    p = subprocess.Popen([TPUPROF, 'trace', '-q', cap, '-o', '-'], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.read(10)
    p.stdout.close()
    err = p.stderr.read().decode()
    rc = p.wait(timeout=60)
    check(rc == 141 and err == '', f'closed pipe: exit {rc}, {err!r}')


def advice_marks(cap, tr):
    """Each fired advice finding with a time (`report`'s advice, time_ps)
    is one instant on its plane's "Advice (derived)" track, named after
    its rule, with its figures; nothing else is. The straggler's sits at
    the start of the worst step on its slowest core: the start of that
    core's inferred "step N" slice. Returns the instants."""
    rep = doc('report', cap)
    want = [f for f in rep['advice'] if f['verdict'] == 'fired' and f['time_ps'] is not None]
    tracks = {t['uuid'] for t in tr.d['tracks'] if t['name'] == 'Advice (derived)'}
    got = [e for e in tr.d['instants'] if e['track'] in tracks]
    check(len(got) == len(want), f'{cap}: {len(got)} advice instants, {len(want)} fired findings with a time')
    for f, e in zip(want, got):
        proc = process_of(tr.d, next(t for t in tr.d['tracks'] if t['uuid'] == e['track']))
        check(proc == f"{f['host']} {f['plane']}" and e['name'] == f['rule'] and
              e['args'] == dict({'rule': f['rule'], 'measured': f['measured'],
                                 'threshold': f['threshold'], 'advice': f['text']},
                                **({'step': f['step']} if f['step'] is not None else {})),
              f'{cap}: advice instant {e} for {f}')
        m = re.search(r'worst step (\d+):', f['text'])
        if f['rule'] == 'straggler' and check(m and int(m.group(1)) == f['step'],
                                              f'{cap}: straggler text {f["text"]}, step {f["step"]}'):
            steps = [s for s in tr.d['slices'] if s['name'] == f'step {m.group(1)}' and
                     tr.where[s['track']][0] == proc and tr.where[s['track']][1].startswith('Steps')]
            check([s['ts'] for s in steps] == [e['ts']],
                  f'{cap}: straggler instant at {e["ts"]}, step {m.group(1)} at {[s["ts"] for s in steps]}')
    return len(got)


def small_ordering(tr):
    """The descriptors of testdata/small.xplane.pb, exactly: (process,
    rank) and per process its line tracks (name, rank, counter)."""
    d = tr.d
    procs = sorted((t['process_name'], t['rank']) for t in d['tracks'] if 'process_name' in t)
    check(procs == [('host0 /device:TPU:0', 0), ('host0 /device:TPU:1', 1), ('host0 /host:CPU', 2)],
          f'small: processes {procs}')
    got = collections.defaultdict(list)
    for t in d['tracks']:
        if t['parent'] is not None and t['name'] != LINES:
            got[process_of(d, t)].append((t['name'], t['rank'], t['counter']))
    tpu = [('XLA Modules', 0, False), ('XLA Ops', 1, False), ('Name scopes (derived)', 2, False),
           ('Compiler memory peaks', 3, False), ('Steps (inferred: jit_train_step)', 4, False)]
    want = {'host0 /device:TPU:0': tpu, 'host0 /device:TPU:1': tpu,
            'host0 /host:CPU': [('main', 0, False), ('pjrt-tpu-tasks/3116851', 1, False),
                                ('python', 2, False), ('Memory 0 bytes in use', 3, True),
                                ('Memory 0 heap bytes', 4, True), ('Memory 1 bytes in use', 5, True),
                                ('Memory 1 heap bytes', 6, True), ('Memory peaks', 7, False)]}
    check(dict(got) == want, f'small: tracks {dict(got)}')


def canonical(d):
    """A dumped trace without its uuids: every track as (process, name,
    counter), every slice, instant and counter value on its track's key."""
    by_uuid = {t['uuid']: t for t in d['tracks']}
    procs = {t['uuid']: process_of(d, t) for t in d['tracks']}
    def key(uuid):
        t = by_uuid[uuid]
        return (procs[uuid], t['name'], t['counter'])
    tracks = collections.Counter(key(t['uuid']) for t in d['tracks'])
    evs = collections.Counter()
    for kind in ('slices', 'instants', 'counters'):
        for e in d[kind]:
            evs[(kind, key(e['track']), json.dumps({k: v for k, v in e.items() if k != 'track'},
                                                    sort_keys=True))] += 1
    return tracks, evs


def lanes_same(cap, tmp):
    """-j 3 (a host's planes on three threads, packets interleaved) holds
    what -j 1 holds; -j 1 writes the same bytes twice."""
    one, again, three = (os.path.join(tmp, n) for n in ('j1.pftrace', 'j1b.pftrace', 'j3.pftrace'))
    write(cap, one, '-j', '1')
    write(cap, again, '-j', '1')
    write(cap, three, '-j', '3')
    with open(one, 'rb') as f, open(again, 'rb') as g:
        check(f.read() == g.read(), f'{cap}: -j 1 wrote different bytes twice')
    a, b = canonical(dump(one)), canonical(dump(three))
    check(a[0] == b[0], f'{cap}: -j 3 tracks differ from -j 1')
    check(a[1] == b[1], f'{cap}: -j 3 events differ from -j 1: {len(a[1] - b[1])} missing, {len(b[1] - a[1])} more')


def digest_same(cap, tmp, tr):
    """trace_dump --digest (packet by packet, for traces of any size)
    counts what the full reader read, and gives -j 1 and -j 3 one digest:
    the order-free digest that shows two encodings hold one content."""
    one, three = (os.path.join(tmp, n) for n in ('j1.pftrace', 'j3.pftrace'))
    got = []
    for path in (one, three):
        p = subprocess.run([DUMP, '--digest', path], capture_output=True)
        d = json.loads(p.stdout)
        check(p.returncode == 0 and not d['errors'], f'{path}: --digest says {d["errors"][:5]}')
        got.append(d)
    a, b = got
    check(a['digest'] == b['digest'], f'{cap}: -j 3 digest differs from -j 1')
    want = (len(tr.d['slices']), len(tr.d['instants']), len(tr.d['counters']))
    check((a['slices'], a['instants'], a['counters']) == want,
          f'{cap}: --digest counts {a["slices"]}, {a["instants"]}, {a["counters"]}, the reader {want}')


def damaged_long_line(tmp):
    """trace opens a capture with its long op lines deferred, and the
    advice's ops pass scans them (tp_trace_judge): a damaged one found
    then is left out as a whole open leaves it. Two cores with op lines
    of 1.4 MB (over TP_DEFER_MIN_BYTES), 12 bytes of 0xff in TPU:1's."""
    good, bad = os.path.join(tmp, 'long.xplane.pb'), os.path.join(tmp, 'long-bad.xplane.pb')
    subprocess.run([GEN, '--cores', '2', '--events-per-line', '40000', '-o', good], check=True)
    with open(good, 'rb') as f:
        data = bytearray(f.read())
    at = int(len(data) * 0.7)
    data[at:at + 12] = b'\xff' * 12
    with open(bad, 'wb') as f:
        f.write(data)
    outs = []
    for j in ('1', '3'):
        out = os.path.join(tmp, f'long-bad-{j}.pftrace')
        p = subprocess.run([TPUPROF, 'trace', '-j', j, bad, '-o', out], capture_output=True, text=True)
        warned = [l for l in p.stderr.splitlines() if 'warning' in l]
        check(p.returncode == 0, f'damaged long line -j {j}: exit {p.returncode}: {p.stderr}')
        check(len(warned) == 1 and "skipped line 'XLA Ops' of plane '/device:TPU:1'" in warned[0],
              f'damaged long line -j {j}: warnings {warned}')
        outs.append(dump(out))
    a, b = canonical(outs[0]), canonical(outs[1])
    check(a == b, 'damaged long line: -j 3 differs from -j 1')
    # from standard input the bytes cannot be read again: nothing is
    # deferred, the damaged line is left out at open, the same trace;
    # `report -` likewise (it failed before: its reopen read an empty
    # stdin and called the capture "not a profile capture")
    with open(bad, 'rb') as f:
        out = os.path.join(tmp, 'long-bad-stdin.pftrace')
        p = subprocess.run([TPUPROF, 'trace', '-j', '1', '-', '-o', out], stdin=f,
                           capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr.count("skipped line 'XLA Ops'") == 1,
          f'damaged long line from stdin: exit {p.returncode}: {p.stderr}')
    if p.returncode == 0:
        with open(out, 'rb') as f1, open(os.path.join(tmp, 'long-bad-1.pftrace'), 'rb') as f2:
            check(f1.read() == f2.read(), 'damaged long line from stdin: another trace')
    for how in ('file', 'stdin'):
        with open(bad, 'rb') as f:
            p = subprocess.run([TPUPROF, 'report', '-q', '--format', 'json',
                                bad if how == 'file' else '-'],
                               stdin=f, capture_output=True, text=True)
        warned = json.loads(p.stdout)['warnings'] if p.returncode == 0 else []
        check(any("skipped line 'XLA Ops' of plane '/device:TPU:1'" in w for w in warned),
              f'damaged long line, report from {how}: exit {p.returncode}: {p.stderr[:300]}')
    ops = collections.Counter(process_of(outs[0], t) for t in outs[0]['tracks'] if t['name'] == 'XLA Ops')
    check(sorted(ops) == ['host0 /device:TPU:0'], f'damaged long line: XLA Ops tracks on {dict(ops)}')
    print(f'  damaged long line: left out, {len(outs[0]["slices"])} slices')


def one(cap, tmp, gz=False):
    out = os.path.join(tmp, 'trace.pftrace' + ('.gz' if gz else ''))
    write(cap, out)
    if gz:
        with open(out, 'rb') as f:
            check(f.read(2) == b'\x1f\x8b', f'{out}: not gzip')
    tr = Trace(dump(out))
    ordering(cap, tr)
    n = line_counts(cap, tr)
    ops = op_times(cap, tr)
    peaks, marks = memory_peaks(cap, tr)
    steps = steps_same(cap, tr)
    advice = ADVICE[cap] = advice_marks(cap, tr)
    json_same(cap, tr, tmp)
    print(f'  {os.path.relpath(cap, ROOT)}: {n} events, {ops} ops, {peaks} runtime peaks, {marks} compiler peak instants, {steps} inferred steps, {advice} advice instants')
    return tr


def main():
    caps = ['testdata/small.xplane.pb', 'testdata/layout-b.xplane.pb.gz', 'testdata/run-3hosts',
            'testdata/tf-gpu-steps.xplane.pb']
    for rel in ('tpu-v6e-jax-inference-4chip/tpu_inference_2.xplane.pb',
                'gpu-mi300x8-jax-conv3d/tw003.xplane.pb',
                'gpu-mi300x-jax-attention/tw003.xplane.pb',
                'gpu-v100x8-tf-multiworker/34.83.195.179_6003.xplane.pb'):
        if os.path.exists(os.path.join(SHARED, rel)):
            caps.append(os.path.join(SHARED, rel))
    with tempfile.TemporaryDirectory() as tmp:
        for i, cap in enumerate(caps):
            path = os.path.join(ROOT, cap)
            tr = one(path, tmp, gz=i == 1)
            lanes_same(path, tmp)
            digest_same(path, tmp, tr)
            if cap == 'testdata/small.xplane.pb':
                small_ordering(tr)
                filters(path, tr, tmp)
                fifo_output(path, tmp)
                closed_pipe(path)
            if cap == 'testdata/run-3hosts':
                time_base(path, tr)
                host_filter(path, tmp)
    # v6e: 3 modules with no heap trace ran 14 times (XLA Modules);
    # MI300X attention: 54 runs of such modules by program changes
    # the MI300X conv3d's straggler fires on its GPU steps (GPU:0, worst
    # step 4: 1.838 ms against 772.9 us); the v6e's does not (on the
    # device clock its steps differ by 0.05% at most, docs/ops.md); no
    # other capture here has a fired finding with a time but the
    # generated tf-gpu-steps (its last GPU straggles by 30 us in steps 0
    # and 1)
    for cap in caps:
        n = ADVICE.get(os.path.join(ROOT, cap))
        check(n == (1 if 'conv3d' in cap or 'tf-gpu-steps' in cap else 0),
              f'{cap}: {n} advice instants')
    for part, want in (('tpu-v6e', 14), ('jax-attention', 54)):
        for cap in (c for c in caps if part in c):
            n = START_PEAKS.get(os.path.join(ROOT, cap))
            check(n == want, f'{cap}: {n} program-start compiler peaks, want {want}')
    with tempfile.TemporaryDirectory() as tmp:
        damaged_long_line(tmp)
    for f in failures[:40]:
        print('FAIL', f)
    if failures:
        sys.exit(f'trace-test: {len(failures)} failures')
    print('trace-test: ok')


main()
