#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Remote-peer fuzzer of a devmem flow, run in the peer's namespace.

It plays the TCP peer itself (scapy) on connections to a listening devmem
receiver and sends what real networks carry and attackers craft: payload
sizes from 1 byte to the MSS, IP options valid and malformed, TCP options
known and unknown, duplicate, overlapping, out-of-order and out-of-window
segments, bad IP and TCP checksums, urgent data, IP fragments (tiny,
overlapping, out of order), SYN/RST/FIN in odd states, zero windows, and
ICMP errors quoting the flow. Every payload byte is the receiver's
pattern at its stream offset, so whatever the receiver accepts must read
as the pattern. Every ICMP error the receiver sends back is checked: the
bytes it quotes are the sent ones or zeros, never stale memory.

stdout (read by peer.c): one line per connection, "conn SPORT ACKED",
the stream bytes the receiver acknowledged, then "icmp ERRORS STALE",
then "sent FRAMES". A readable account goes to stderr.
"""

import os
import random
import socket
import subprocess
import sys
import threading
import time

from scapy.all import ICMP, IP, TCP, Raw, conf, fragment, AsyncSniffer

SPORT0 = 41000
MSS = 1460


def pattern(off, n):
    return bytes(10 if (off + i) % 7 == 6 else (off + i) % 7 + 1
                 for i in range(n))


def log(*a):
    print('fuzz:', *a, file=sys.stderr, flush=True)


class Conn:
    """A TCP connection whose peer end is this script."""

    def __init__(self, fz, sport):
        self.fz = fz
        self.sport = sport
        self.isn = random.getrandbits(32)
        self.nxt = 0            # next stream offset to send in order
        self.rack = 0           # receiver's sequence number + 1
        self.acked = 0          # highest ACK seen from the receiver

    def ip(self, **kw):
        # a fresh IP ID for each datagram, as a stack would: fragments of
        # two datagrams must never meet in one reassembly queue
        kw.setdefault('id', random.getrandbits(16))
        return IP(src=self.fz.src, dst=self.fz.dst, **kw)

    def tcp(self, off, flags='A', **kw):
        kw.setdefault('ack', self.rack)
        kw.setdefault('window', 65535)
        return TCP(sport=self.sport, dport=self.fz.dport, flags=flags,
                   seq=(self.isn + 1 + off) & 0xffffffff, **kw)

    def seg(self, off, n, flags='PA', tcpkw=None):
        return (self.ip() / self.tcp(off, flags, **(tcpkw or {})) /
                Raw(pattern(off, n)))

    def open(self):
        syn = self.ip() / TCP(sport=self.sport, dport=self.fz.dport,
                              flags='S', seq=self.isn, window=65535,
                              options=[('MSS', MSS), ('SAckOK', b''),
                                       ('Timestamp', (1, 0)),
                                       ('WScale', 7)])
        ans = self.fz.sr1(syn)
        if ans is None or TCP not in ans or ans[TCP].flags & 0x12 != 0x12:
            raise RuntimeError('no SYN-ACK on port %d' % self.sport)
        self.rack = (ans[TCP].seq + 1) & 0xffffffff
        self.fz.send(self.ip() / self.tcp(0, 'A'))

    def data(self, n, **kw):
        """n bytes in order, at most MSS per segment"""
        while n:
            k = min(n, MSS)
            self.fz.send(self.seg(self.nxt, k, **kw))
            self.nxt += k
            n -= k

    def saw_ack(self, ack):
        off = (ack - self.isn - 1) & 0xffffffff
        if off <= self.nxt + 1:
            self.acked = max(self.acked, off)

    def close(self):
        """FIN; the receiver's ACKs say how much of the stream it took"""
        self.fz.send(self.ip() / self.tcp(self.nxt, 'FA'))
        time.sleep(0.5)
        return self.nxt if self.acked == self.nxt + 1 else self.acked


class Fuzzer:
    def __init__(self, dst, dport, src, seed):
        self.dst, self.dport, self.src = dst, dport, src
        self.sent = 0
        self.sock = conf.L3socket()
        self.iface = conf.route.route(dst)[0]
        # IP options go out through a raw socket, which keeps them as
        # written (scapy would parse the malformed ones)
        self.raw = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                 socket.IPPROTO_RAW)
        self.conns = []
        self.icmp_errors = 0
        self.stale = 0
        random.seed(seed)

    def send(self, pkt):
        self.sock.send(pkt)
        self.sent += 1

    def send_ipopts(self, pkt, opt):
        """@pkt with IP options @opt; the kernel sets length and checksum"""
        b = bytes(pkt)
        opt += b'\0' * (-len(opt) % 4)
        hdr = bytearray(b[:20])
        hdr[0] = 0x40 | (5 + len(opt) // 4)
        self.raw.sendto(bytes(hdr) + opt + b[20:], (self.dst, 0))
        self.sent += 1

    def sr1(self, pkt):
        self.sent += 1
        return self.sock.sr1(pkt, timeout=3, verbose=0)

    def watch(self, pkt):
        if IP not in pkt or pkt[IP].src != self.dst:
            return
        if TCP in pkt and pkt[TCP].sport == self.dport:
            for c in self.conns:
                if c.sport == pkt[TCP].dport:
                    c.saw_ack(pkt[TCP].ack)
        elif ICMP in pkt:
            self.check_icmp(pkt)

    def check_icmp(self, pkt):
        """An ICMP error from the receiver: its quote is the pattern or
        zeros (the bytes it could not read)"""
        if ICMP not in pkt or pkt[IP].src != self.dst:
            return
        if pkt[ICMP].type not in (3, 4, 5, 11, 12):
            return
        self.icmp_errors += 1
        inner = bytes(pkt[ICMP].payload)
        if len(inner) < 20:
            return
        ihl = (inner[0] & 15) * 4
        if len(inner) < ihl + 20 or inner[9] != 6:
            return
        th = inner[ihl:]
        sport = int.from_bytes(th[0:2], 'big')
        seq = int.from_bytes(th[4:8], 'big')
        doff = (th[12] >> 4) * 4
        quoted = th[doff:]
        conn = next((c for c in self.conns if c.sport == sport), None)
        if not quoted or conn is None:
            return
        off = (seq - conn.isn - 1) & 0xffffffff
        if quoted != pattern(off, len(quoted)) and any(quoted):
            self.stale += 1
            log('STALE quote in ICMP type %d: %s' %
                (pkt[ICMP].type, quoted[:16].hex()))

    # the cases; each leaves the connection able to go on in order

    def sizes(self, c):
        for n in (1, 2, 3, 7, 8, 63, 64, 100, 511, 512, 536, 1000, 1200,
                  1447, 1448, 1460):
            c.data(n)
        for _ in range(16):
            c.data(random.randint(1, MSS))

    def ip_options(self, c):
        for opt in (b'\x01\x01\x01\x00',                    # NOP, EOL
                    b'\x94\x04\x00\x00',                    # router alert
                    b'\x07\x07\x04\x00\x00\x00\x00\x00',    # RR, valid
                    b'\x44\x0c\x05\x00' + b'\x00' * 8):     # timestamp
            n = random.randint(1, 1400)
            self.send_ipopts(c.seg(c.nxt, n), opt)
            c.nxt += n
        # malformed (too short, bad pointer, length past the header):
        # the receiver drops them with a parameter problem that quotes
        # the segment; the stream goes on from the same offset
        for opt in (b'\x07\x02\x00\x00', b'\x07\x07\x01\x00\x00\x00\x00\x00',
                    b'\x44\x28\x05\x00'):
            self.send_ipopts(c.seg(c.nxt, 1000), opt)
        time.sleep(0.2)

    def tcp_options(self, c):
        for opts in ([('NOP', None), ('NOP', None), ('Timestamp', (2, 1))],
                     [('SAck', (c.isn, c.isn + 10))],
                     [(30, b'\xde\xad\xbe\xef')],      # unknown kind
                     [(253, b'')],                     # experimental
                     [('MSS', 536)], [('WScale', 14)],
                     [('NOP', None)] * 10 + [('EOL', None)]):
            c.data(random.randint(1, 1200), tcpkw={'options': opts})

    def reorder(self, c):
        a = c.nxt
        # out of order, then the hole: the receiver queues and merges
        self.send(c.seg(a + 1000, 1000))
        self.send(c.seg(a + 3000, 500))
        self.send(c.seg(a + 2000, 1000))
        self.send(c.seg(a, 1000))
        c.nxt = a + 3500
        # duplicates and overlaps of what it already has
        self.send(c.seg(a, 3500 if 3500 <= MSS else MSS))
        self.send(c.seg(a + 500, 1000))
        self.send(c.seg(a + 3000, 500))
        c.data(300)
        self.send(c.seg(c.nxt - 200, 1000))
        c.nxt += 800

    def out_of_window(self, c):
        for off in (c.nxt + (1 << 30), c.nxt + (1 << 20), c.nxt - 100000,
                    c.nxt - (1 << 31)):
            self.send(c.seg(off & 0xffffffff, 100))
        self.send(c.ip() / c.tcp(c.nxt, 'A', ack=(c.rack + 100000) &
                                 0xffffffff))
        # zero windows and a window probe from the peer
        self.send(c.ip() / c.tcp(c.nxt, 'A', window=0))
        self.send(c.seg((c.nxt - 1) & 0xffffffff, 1))
        c.data(500)

    def checksums(self, c):
        bad = c.seg(c.nxt, 1000)
        bad[TCP].chksum = 0xdead
        self.send(bad)
        bad = c.seg(c.nxt, 1000)
        bad[IP].chksum = 0xbeef
        self.send(bad)
        c.data(1000)

    def urgent(self, c):
        # pointer inside the segment, at its end, and ahead of it
        for up in (10, 1000, 3000):
            c.data(1000, flags='PAU', tcpkw={'urgptr': up})
        c.data(2000)

    def fragments(self, c):
        for size in (8, 64, 512):
            pkt = c.seg(c.nxt, 1200)
            frags = fragment(pkt, fragsize=size)
            if size == 64:
                frags.reverse()
            for f in frags:
                self.send(f)
            c.nxt += 1200
        # overlapping fragments: the receiver drops the datagram, and the
        # same bytes then come whole
        pkt = c.seg(c.nxt, 1000)
        frags = fragment(pkt, fragsize=256)
        over = frags[1].copy()
        over[IP].frag -= 8
        for f in [frags[0], over] + frags[1:]:
            self.send(f)
        time.sleep(0.3)
        c.data(1000)

    def odd_flags(self, c):
        self.send(c.ip() / c.tcp(c.nxt, 'S'))           # challenge ACK
        self.send(c.ip() / c.tcp((c.nxt + 70000) & 0xffffffff, 'R'))
        self.send(c.ip() / c.tcp(c.nxt + 5, 'R'))       # in window, not nxt
        self.send(c.ip() / c.tcp(c.nxt, 'SF'))
        self.send(c.ip() / c.tcp(c.nxt, ''))            # no flags
        # a FIN out of window: the stream goes on
        self.send(c.ip() / c.tcp((c.nxt + (1 << 30)) & 0xffffffff, 'FPU',
                                 urgptr=0))
        c.data(700)

    def icmp_to_receiver(self, c):
        """errors quoting a segment of the receiver's (its socket takes
        them: in window, and far out of it) and one of the peer's own"""
        quotes = [bytes(IP(src=self.dst, dst=self.src) /
                        TCP(sport=self.dport, dport=c.sport, flags='A',
                            seq=(c.rack + d) & 0xffffffff,
                            ack=(c.isn + 1 + c.nxt) & 0xffffffff))
                  for d in (0, 1 << 30)]
        quotes.append(bytes(c.seg(max(c.nxt - 500, 0), 500)))
        for quote in quotes:
            for t, code, mtu in ((3, 4, 1280), (3, 4, 68), (3, 1, 0),
                                 (11, 0, 0), (12, 0, 0), (3, 3, 0)):
                ic = ICMP(type=t, code=code)
                if mtu:
                    ic.nexthopmtu = mtu
                self.send(IP(src=self.src, dst=self.dst) / ic /
                          Raw(quote[:548]))
        c.data(1000)

    CASES = ('sizes', 'ip_options', 'tcp_options', 'reorder',
             'out_of_window', 'checksums', 'urgent', 'fragments',
             'odd_flags', 'icmp_to_receiver')

    def run(self, rounds):
        sniff = AsyncSniffer(iface=self.iface, store=False, prn=self.watch)
        sniff.start()
        time.sleep(0.5)
        port = SPORT0
        only = os.environ.get('FUZZ_CASES', '').split()
        for r in range(rounds):
            cases = [n for n in self.CASES if not only or n in only]
            random.shuffle(cases)
            c = Conn(self, port)
            port += 1
            self.conns.append(c)
            c.open()
            for name in cases:
                getattr(self, name)(c)
            time.sleep(0.3)
            acked = c.close()
            log('round %d port %d: %s; %d bytes sent in order, %d acked' %
                (r, c.sport, ' '.join(cases), c.nxt, acked))
            print('conn %d %d' % (c.sport, acked), flush=True)
        time.sleep(1)
        sniff.stop()
        log('%d frames sent, %d ICMP errors back, %d with stale bytes' %
            (self.sent, self.icmp_errors, self.stale))
        print('icmp %d %d' % (self.icmp_errors, self.stale), flush=True)
        print('sent %d' % self.sent, flush=True)


def main():
    dst, dport, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    seed = int(os.environ.get('FUZZ_SEED', time.time_ns() & 0xffffffff))
    log('seed %d (FUZZ_SEED to replay), %d rounds' % (seed, rounds))
    conf.verb = 0
    # this namespace's TCP knows none of these connections: keep it from
    # resetting them
    rule = ['OUTPUT', '-p', 'tcp', '--sport', '%d:%d' % (SPORT0, SPORT0 + 999),
            '--tcp-flags', 'RST', 'RST', '-j', 'DROP']
    subprocess.run(['iptables', '-I'] + rule, check=True)
    try:
        Fuzzer(dst, dport, src, seed).run(rounds)
    finally:
        subprocess.run(['iptables', '-D'] + rule)


if __name__ == '__main__':
    main()
