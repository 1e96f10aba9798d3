#!/usr/bin/env python3
"""Write testdata/good/sample.vpc and sample.vpc3: small deterministic legacy
VPC traces (formats/IMPORT.md section 7) for the importer tests.

sample.vpc:  u32 range 64, then 50 pairs (u32 PC < 64, u64 extended data), LE
sample.vpc3: "vpc3", then the same 50 pairs

The pairs mimic a load-value trace: a loop of 8 PCs whose extended data are
strided addresses, a counter, and pseudo-random values (a fixed 64-bit LCG),
so every field has varied bits.  Run from the repository root; the output
never changes.
"""
import struct

def pairs():
    x = 0x2545F4914F6CDD1D
    out = []
    for i in range(50):
        pc = (i % 8) * 3 + 1
        x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        kind = i % 8
        if kind < 3:
            ed = 0x7FFF0000_1000 + 8 * i
        elif kind < 5:
            ed = i
        else:
            ed = x
        out.append(struct.pack('<IQ', pc, ed))
    return b''.join(out)

body = pairs()
with open('testdata/good/sample.vpc', 'wb') as f:
    f.write(struct.pack('<I', 64) + body)
with open('testdata/good/sample.vpc3', 'wb') as f:
    f.write(b'vpc3' + body)
