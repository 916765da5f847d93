#!/usr/bin/python3
"""d2d results page: docs/results.md and its plots from the benches' lines.

    tools/report.py render [--out DIR] LOG...

reads the "bench: NAME: ..." lines of one run of the benches (the logs
make report keeps) and writes DIR/results.md (default docs/) with one PNG
per figure under DIR/results/, drawn by matplotlib.  Every figure is drawn
from the lines of that run only; a figure whose lines are missing says so
instead of being drawn.  The page ends with every bench line, as printed.

A bench line is "bench: NAME: LABEL VALUE vs LABEL VALUE = RATIO (note)"
or a bench's own free form; docs/results.md explains each figure.  The
congestion control bench's time series come from its "BENCH cc ..."
lines (one per bucket of modeled time), which are plotted, not listed.
"""
import argparse
import datetime
import os
import platform
import re
import subprocess
import sys

# "bench: NAME: ..." or, for a bench's own check, "bench: PASS NAME: ..."
BENCH = re.compile(r'^bench: (?:(PASS|FAIL) )?([A-Za-z0-9_.<>-]+): (.*)$')
# "BENCH cc mode=M flows=N t_us=T f0=G f1=G ... key=value ...": one bucket
# of the congestion control bench's series (tests/bench/flexins-cc.sh)
CC = re.compile(r'^BENCH cc mode=([a-z]+) flows=([0-9]+) t_us=([0-9]+) (.*)$')
PAIR = re.compile(r'^(\S+) ([0-9.]+) vs (\S+) ([0-9.]+) = (\S+)(?: \((.*)\))?$')
SIZE = re.compile(r'^([0-9]+)(B|KiB|MiB)?$')


def size_bytes(text):
    """'64KiB' -> 65536, '512' -> 512; None if not a size."""
    m = SIZE.match(text)
    if not m:
        return None
    return int(m.group(1)) * {None: 1, 'B': 1, 'KiB': 1024,
                              'MiB': 1 << 20}[m.group(2)]


def parse(lines):
    """The bench lines in order: (name, rest, pair or None)."""
    out = []
    for line in lines:
        m = BENCH.match(line.strip())
        if not m:
            continue
        name, rest = m.group(2), m.group(3)
        if m.group(1):
            rest = m.group(1) + ': ' + rest
        p = PAIR.match(rest)
        pair = None
        if p:
            pair = {'a': p.group(1), 'av': float(p.group(2)),
                    'b': p.group(3), 'bv': float(p.group(4)),
                    'ratio': p.group(5), 'note': p.group(6) or ''}
        out.append((name, rest, pair))
    return out


def parse_series(lines):
    """The congestion control bench's series: (mode, flows) -> {'flow K':
    [(t in ms, Gbit/s acknowledged in the bucket)]}."""
    out = {}
    for line in lines:
        m = CC.match(line.strip())
        if not m:
            continue
        run = out.setdefault((m.group(1), int(m.group(2))), {})
        t = int(m.group(3)) / 1000.0
        for kv in m.group(4).split():
            k, _, v = kv.partition('=')
            if re.match(r'^f[0-9]+$', k):
                run.setdefault('flow %s' % k[1:], []).append((t, float(v)))
    return out


def fld_paper_pcie_bytes(size):
    """PCIe bytes per echoed packet on the NIC<->FLD link under the FLD
    paper's model parameters (ASPLOS'22 section 6): request/write TLP
    header 24 B, completion header 20 B, MPS 256, MRRS 512, 64 B CQEs
    moderated 1 in 16.  Receive: the NIC writes the frame into FLD memory
    and a moderated CQE; transmit: the NIC reads a 64 B WQE and the frame
    (read requests per MRRS, completions per MPS) and writes a moderated
    CQE."""
    def chunks(n, unit):
        return (n + unit - 1) // unit
    rx = size + 24 * chunks(size, 256) + (64 + 24) / 16
    wqe = 24 + 20 + 64
    tx = wqe + 24 * chunks(size, 512) + 20 * chunks(size, 256) + size
    tx += (64 + 24) / 16
    return rx + tx


def figures(runs, cc=None):
    """Each figure: (id, title, what, series) with series a dict
    label -> list of (x, y); 'paper' series are drawn dashed.  @cc: the
    congestion control series (parse_series)."""
    figs = []

    # RDMA WRITE bandwidth vs message size, snic vs rxe.
    s = {}
    for name, _, p in runs:
        m = re.match(r'^rdma-write-bw-([0-9]+(?:B|KiB|MiB))-MBps$', name)
        if m and p:
            x = size_bytes(m.group(1))
            s.setdefault(p['a'], []).append((x, p['av']))
            s.setdefault(p['b'], []).append((x, p['bv']))
    figs.append(('rdma-bw', 'RDMA WRITE bandwidth vs message size',
                 ('message size (B)', 'MB/s'), s, 'line'))

    # Ethernet: TCP throughput and ping latency, snic vs e1000e/virtio.
    # In timing mode only snic has a cost model: the baselines' device
    # work is free in modeled time (docs/timing.md).
    for metric, title, unit in (
            ('eth-tcp-mbps', 'Ethernet TCP throughput', 'Mbit/s'),
            ('eth-ping-ms', 'Ethernet ping latency', 'ms'),
            ('eth-timed-tcp-mbps', 'Ethernet TCP throughput, modeled time '
             '(baselines\' device work free)', 'Mbit/s'),
            ('eth-timed-ping-us', 'Ethernet ping round trip, modeled time '
             '(baselines\' device work free)', 'us')):
        s = {}
        for name, _, p in runs:
            if name == metric and p:
                s[p['a']] = [(0, p['av'])]
                s[p['b']] = [(0, p['bv'])]
        figs.append((metric, title, ('NIC', unit), s, 'bar'))

    # RDMA in timing mode: modeled bandwidth and latency, snic vs rxe.
    for metric, title, unit in (
            ('rdma-timed-write-bw-64KiB-MBps',
             'RDMA WRITE 64 KiB bandwidth, modeled time', 'MB/s'),
            ('rdma-timed-read-lat-64B-us',
             'RDMA READ 64 B latency, modeled time', 'us')):
        s = {}
        for name, _, p in runs:
            if name == metric and p:
                s[p['a']] = [(0, p['av'])]
                s[p['b']] = [(0, p['bv'])]
        figs.append((metric, title, ('device', unit), s, 'bar'))

    # FLD echo in timing mode: round trip of FLD-E and of the host CPU
    # echo, beside the FlexDriver paper's (Table 6).
    s = {}
    for name, _, p in runs:
        if name == 'fld-timed-echo-rtt-us' and p:
            s[p['a']] = [(0, p['av'])]
            s[p['b']] = [(0, p['bv'])]
    if s:
        s['paper: fld'] = [(0, 2.78)]
        s['paper: cpu echo'] = [(0, 2.36)]
    figs.append(('fld-timed-echo-rtt-us',
                 'FLD echo round trip, modeled time (paper: Table 6)',
                 ('echo', 'us'), s, 'bar'))

    # HDC NIC side: d2d vs software-controlled P2P per request size.
    s = {}
    for name, rest, _ in runs:
        m = re.match(r'^hdc-net-([0-9]+)-(cpu|latency)-vs-sw-p2p$', name)
        r = re.search(r' = ([0-9.]+)', rest)
        if m and r:
            what = ('guest instructions' if m.group(2) == 'cpu'
                    else 'latency (emulated)')
            s.setdefault('d2d / sw-p2p, ' + what, []).append(
                (int(m.group(1)), float(r.group(1))))
        m = re.match(r'^hdc-net-timed-([0-9]+)-latency-us$', name)
        if m and r:
            s.setdefault('d2d / sw-p2p, latency (modeled time)', []).append(
                (int(m.group(1)), float(r.group(1))))
    if s:
        xs = sorted({x for v in s.values() for x, _ in v})
        s['paper: CPU 0.48'] = [(x, 0.48) for x in xs]
        s['paper: latency 0.58'] = [(x, 0.58) for x in xs]
    figs.append(('hdc-net', 'HDC SSD->NIC: d2d vs software-controlled P2P',
                 ('request size (B)', 'ratio (lower is better)'), s,
                 'line'))

    # sPIN: throughput per use case vs packet size, as the device accounts
    # it (HPU cycles and the 512 Gbit/s interconnect: sat_mbps).
    s = {}
    for name, rest, _ in runs:
        m = re.match(r'^spin-([a-z0-9_]+)-([0-9]+)B$', name)
        g = re.search(r'device sat_mbps ([0-9.]+) Gbit/s', rest)
        if m and g:
            s.setdefault(m.group(1), []).append((int(m.group(2)),
                                                 float(g.group(1))))
    if s:
        xs = sorted({x for v in s.values() for x, _ in v})
        s['paper: 400 Gbit/s line rate'] = [(x, 400.0) for x in xs]
    figs.append(('spin-throughput', 'sPIN handler throughput per use case',
                 ('packet size (B)', 'Gbit/s (device account)'), s, 'line'))

    # sPIN in timing mode (PsPIN's Figure 12): the engine's throughput per
    # use case and packet size, HPU cycles, interconnect and L2 banks.
    s = {}
    for name, _, p in runs:
        m = re.match(r'^spin-timed-([a-z0-9_]+)-([0-9]+)B-Gbps$', name)
        if m and p:
            s.setdefault(m.group(1), []).append((int(m.group(2)), p['av']))
    if s:
        xs = sorted({x for v in s.values() for x, _ in v})
        s['paper: ~400 Gbit/s (Figure 12)'] = [(x, 400.0) for x in xs]
    figs.append(('spin-timed-throughput',
                 'sPIN handler throughput, timing mode (PsPIN Figure 12)',
                 ('packet size (B)', 'Gbit/s (device account)'), s, 'line'))

    # FLD: PCIe bytes per echoed packet vs size, ours vs the paper's model.
    s = {}
    for name, _, p in runs:
        m = re.match(r'^fld-pcie-tlp-bytes-per-packet-([0-9]+)$', name)
        if m and p:
            x = int(m.group(1))
            s.setdefault('d2d fld', []).append((x, p['av']))
            s.setdefault('paper: PCIe model (section 6)', []).append(
                (x, fld_paper_pcie_bytes(x)))
    figs.append(('fld-pcie', 'FLD: NIC<->FLD PCIe bytes per echoed packet',
                 ('frame size (B)', 'bytes per packet'), s, 'line'))

    # FLD-E echo throughput vs frame size in timing mode (device harness),
    # beside the paper's PCIe model on FLD's link (Figure 7a).
    s = {}
    for name, rest, p in runs:
        m = re.match(r'^fld-timed-tput-([0-9]+)B-Gbps$', name)
        w = re.search(r'wire allows ([0-9.]+)', rest)
        if m and p:
            x = int(m.group(1))
            s.setdefault('fld-e (modeled time)', []).append((x, p['av']))
            s.setdefault('paper: PCIe model (Figure 7a)', []).append(
                (x, p['bv']))
            if w:
                s.setdefault('100 Gbit/s line rate', []).append(
                    (x, float(w.group(1))))
    figs.append(('fld-timed-tput',
                 'FLD-E echo throughput vs frame size, modeled time '
                 '(paper: Figure 7a)',
                 ('frame size (B)', 'Gbit/s'), s, 'line'))

    # FLD-R latency against load in timing mode (closed loop, 1..16 in
    # flight), FLD-R vs the host CPU as an RDMA server (paper: Figure 7c).
    s = {}
    for name, rest, p in runs:
        m = re.match(r'^fld-timed-fldr-latency-k([0-9]+)-us$', name)
        ld = re.search(r'load fld-r ([0-9.]+) vs cpu-rdma ([0-9.]+)', rest)
        if m and p and ld:
            s.setdefault('fld-r', []).append((float(ld.group(1)), p['av']))
            s.setdefault('cpu rdma server', []).append(
                (float(ld.group(2)), p['bv']))
    figs.append(('fld-timed-fldr-latency',
                 'FLD-R latency vs load, modeled time (paper: Figure 7c)',
                 ('requests/s (closed loop, 1..16 in flight)', 'us'), s,
                 'line'))

    # HDC local functions in timing mode: MB/s, engine vs CPU.
    s = {}
    for name, _, p in runs:
        m = re.match(r'^hdc-timed-([a-z0-9-]+)-MBps$', name)
        if m and p:
            cat = '%s\nvs %s' % (m.group(1), p['b'])
            s.setdefault('d2d engine', []).append((cat, p['av']))
            s.setdefault('CPU baseline (1 GIPS)', []).append((cat, p['bv']))
    figs.append(('hdc-timed-MBps', 'HDC: MB/s in modeled time',
                 ('function', 'MB/s (modeled time)'), s, 'bars'))

    # HDC: guest instructions per MiB per function, engine vs CPU.
    s = {}
    for name, _, p in runs:
        m = re.match(r'^hdc-(?!timed-)([a-z0-9-]+)-insns-per-MiB$', name)
        if m and p:
            cat = '%s\nvs %s' % (m.group(1), p['b'])
            s.setdefault('d2d engine', []).append((cat, p['av']))
            s.setdefault('CPU baseline', []).append((cat, p['bv']))
    figs.append(('hdc-insns', 'HDC: guest instructions per MiB',
                 ('function', 'guest instructions per MiB'), s, 'bars'))
    # FlexiNS: 64-byte RDMA WRITE bandwidth by QP count, pipe QPs (over
    # shared send queues, and a send pipe per QP) vs doorbell QPs, in
    # modeled time; the paper's 2.4x over doorbells drawn dashed.
    s = {}
    for name, rest, p in runs:
        m = re.match(r'^flexins-(ssq|pipe-qp)-write-bw-64B-([0-9]+)qp-MBps$',
                     name)
        if m and p:
            q = int(m.group(2))
            label = {'ssq': 'pipe QPs over shared send queues',
                     'pipe-qp': 'a send pipe per QP'}[m.group(1)]
            s.setdefault(label, []).append((q, p['av']))
            if m.group(1) == 'ssq':
                s.setdefault(p['b'], []).append((q, p['bv']))
            f = re.search(r'paper: ([0-9.]+)x', p['note'])
            if f and m.group(1) == 'ssq':
                s.setdefault('paper: %sx doorbell' % f.group(1), []).append(
                    (q, p['bv'] * float(f.group(1))))
    figs.append(('flexins-pipe-bw',
                 'FlexiNS: pipe vs doorbell 64 B WRITE bandwidth, modeled time',
                 ('QPs per port', 'MB/s'), s, 'line'))

    # FlexiNS offload engine: speedup (baseline latency / offload latency)
    # per request, ours and the paper's, in modeled time.
    s = {}
    for name, rest, p in runs:
        m = re.match(r'^flexins-offload-([a-z-]+-[0-9]+)-lat(-plus-hpu)?-us$',
                     name)
        f = re.search(r'paper: ([0-9.]+)x', rest)
        if not (m and p and p['av'] > 0):
            continue
        cat = '%s\nvs %s' % (m.group(1), p['b'])
        label = ('ours, latency + HPU cycles' if m.group(2)
                 else 'ours (modeled time)')
        s.setdefault(label, []).append((cat, p['bv'] / p['av']))
        if f and not m.group(2):
            s.setdefault('paper', []).append((cat, float(f.group(1))))
    figs.append(('flexins-offload',
                 'FlexiNS offload engine: latency speedup over verbs',
                 ('request', 'baseline / offload latency'), s, 'bars'))

    # FlexiNS congestion control: each of 4 flows' goodput per bucket of
    # modeled time (flows 1 ms apart into one port), DCQCN and the AIMD
    # window it replaces.
    for mode, title in (('dcqcn', 'DCQCN convergence'),
                        ('aimd', 'AIMD window (baseline)')):
        figs.append(('flexins-cc-%s' % mode,
                     '%s: per-flow rate over modeled time, 4 flows' % title,
                     ('modeled time (ms)', 'Gbit/s acknowledged'),
                     (cc or {}).get((mode, 4), {}), 'time'))
    return figs


def draw(fig, path):
    """Writes one PNG; returns False when the run had no data for it."""
    fid, title, (xl, yl), series, kind = fig
    if not series:
        return False
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    f, ax = plt.subplots(figsize=(8.0, 4.4), dpi=100)
    if kind == 'line':
        for label, pts in series.items():
            pts = sorted(pts)
            ax.plot([x for x, _ in pts], [y for _, y in pts],
                    '--' if label.startswith('paper') else '-o', label=label)
        ax.set_xscale('log', base=2)
    elif kind == 'time':
        for label, pts in series.items():
            pts = sorted(pts)
            ax.plot([x for x, _ in pts], [y for _, y in pts], '-',
                    linewidth=1, label=label)
    elif kind == 'bar':
        labels = list(series)
        ax.bar(labels, [series[k][0][1] for k in labels])
    else:
        cats = [c for c, _ in next(iter(series.values()))]
        width = 0.8 / len(series)
        for i, (label, pts) in enumerate(series.items()):
            ax.bar([j + i * width for j in range(len(pts))],
                   [y for _, y in pts], width, label=label)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cats))])
        ax.set_xticklabels(cats, fontsize='x-small')
        ax.set_yscale('log')
    ax.set_title(title)
    ax.set_xlabel(xl)
    ax.set_ylabel(yl)
    if kind != 'bar':
        ax.legend(fontsize='small')
    ax.grid(True, alpha=0.3)
    f.tight_layout()
    f.savefig(path, metadata={'Software': None})
    plt.close(f)
    return True


def header(logs):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        commit = subprocess.run(['git', '-C', root, 'rev-parse', '--short',
                                 'HEAD'], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = 'unknown'
    cpu = 'unknown CPU'
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    cpu = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    return ['# d2d results', '',
            'Generated by `make report` (tools/report.py) from the bench '
            'logs listed below; each bench measures ours and its baseline '
            'side by side in one run.  Do not edit: run `make report` '
            'again.', '',
            '- date: %s' % datetime.date.today().isoformat(),
            '- commit: %s' % commit,
            '- machine: %s, %d CPUs, %s %s' % (cpu, os.cpu_count() or 0,
                                               platform.system(),
                                               platform.release()),
            '- bench logs: %s' % ', '.join(
                '%s (%s)' % (os.path.basename(p), datetime.datetime.fromtimestamp(
                    os.path.getmtime(p)).strftime('%Y-%m-%d %H:%M'))
                for p in logs), '',
            'Guest instruction counts are exact under TCG.  Times are the '
            "guests' emulated time unless a line says \"modeled\" "
            '(README: Benchmarks): they are comparable only within one run.',
            '']


def render(logs, out):
    lines = []
    for path in logs:
        with open(path, errors='replace') as f:
            lines.extend(f.read().splitlines())
    runs = parse(lines)
    if not runs:
        sys.exit('report: no "bench:" lines in %s' % ' '.join(logs))
    pngdir = os.path.join(out, 'results')
    os.makedirs(pngdir, exist_ok=True)
    md = header(logs)
    md += ['## Figures', '']
    for fig in figures(runs, parse_series(lines)):
        png = os.path.join(pngdir, fig[0] + '.png')
        md.append('### ' + fig[1])
        md.append('')
        if draw(fig, png):
            md.append('![%s](results/%s.png)' % (fig[1], fig[0]))
        else:
            if os.path.exists(png):
                os.unlink(png)
            md.append('No bench line of this run feeds this figure.')
        md.append('')
    md += ['## Every bench line', '', '| bench | result |', '|---|---|']
    for name, rest, _ in runs:
        md.append('| %s | %s |' % (name, rest.replace('|', '\\|')))
    md.append('')
    with open(os.path.join(out, 'results.md'), 'w') as f:
        f.write('\n'.join(md))
    print('report: %s/results.md: %d bench lines, %d figures' %
          (out, len(runs), sum(1 for n in os.listdir(pngdir)
                               if n.endswith('.png'))))


def main():
    ap = argparse.ArgumentParser(
        description='Write docs/results.md and its plots from bench logs.')
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('render', help='render the page from bench logs')
    r.add_argument('--out', default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'docs'))
    r.add_argument('logs', nargs='+')
    a = ap.parse_args()
    render(a.logs, a.out)


if __name__ == '__main__':
    main()
