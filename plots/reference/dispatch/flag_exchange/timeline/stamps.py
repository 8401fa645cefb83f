#!/usr/bin/env python3
"""Summarises the XTS lines of softmax_flags (stamps.diff) from one run of 07_softmax.

Each data CTA prints `XTS D block sm start loaded combined word written` and each merging warp
`XTS M block sm start seen published` (%globaltimer, ns). Launches are told apart by gaps of
more than 20 us between CTA starts; the last `--last` launches are summarised, every time from
the first CTA's start of that launch: min, median and max over the CTAs.
usage: stamps.py FILE [--last N]
"""
import sys

def main():
    path = sys.argv[1]
    last = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == '--last' else 3
    recs = []
    for line in open(path):
        if line.startswith('XTS D') or line.startswith('XTS M'):
            t = line.split()
            recs.append((t[1], [int(x) for x in t[2:]]))
    recs.sort(key=lambda r: r[1][2])
    launches, prev = [[]], None
    for r in recs:
        if prev is not None and r[1][2] - prev > 20000:
            launches.append([])
        launches[-1].append(r)
        prev = r[1][2]
    def q(xs):
        xs = sorted(xs)
        return '%5d %5d %5d' % (xs[0], xs[len(xs) // 2], xs[-1])
    for g in launches[-last:]:
        base = min(r[1][2] for r in g)
        d = [r[1] for r in g if r[0] == 'D']
        m = [r[1] for r in g if r[0] == 'M']
        print('launch: %d CTAs on %d SMs, %d merging warps (ns from the first CTA start: min median max)'
              % (len(d), len({x[1] for x in d}), len(m)))
        for name, i in (('start', 2), ('loaded', 3), ('state', 4), ('row word', 5), ('written', 6)):
            print('  CTA %-9s %s' % (name, q([x[i] - base for x in d])))
        for name, i in (('start', 2), ('published', 4)):
            print('  merger %-6s %s' % (name, q([x[i] - base for x in m])))
        print('  exchange (last CTA state -> last CTA holding the row word): %d ns'
              % (max(x[5] for x in d) - max(x[4] for x in d)))

main()
