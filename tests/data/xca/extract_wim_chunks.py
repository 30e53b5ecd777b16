# Pulls the raw XPRESS chunks of one file's blob out of a WIM (non-solid
# resource): header -> blob table -> the blob whose SHA-1 matches -> chunk table.
import struct, hashlib, sys
wim = open(sys.argv[1], 'rb').read()
plain = open(sys.argv[2], 'rb').read()
assert wim[:8] == b'MSWIM\0\0\0'
flags, chunk_size = struct.unpack_from('<II', wim, 16)
def reshdr(off):
    size = int.from_bytes(wim[off:off+7], 'little'); rflags = wim[off+7]
    offset, orig = struct.unpack_from('<QQ', wim, off+8)
    return size, rflags, offset, orig
bt_size, bt_flags, bt_off, bt_orig = reshdr(48)
sha = hashlib.sha1(plain).digest()
for e in range(bt_off, bt_off + bt_orig, 50):
    if wim[e+30:e+50] == sha:
        size, rflags, offset, orig = reshdr(e)
        break
else:
    sys.exit('blob not found')
assert orig == len(plain) and rflags & 4, (orig, rflags)   # 4 = compressed
nchunks = (orig + chunk_size - 1) // chunk_size
table = [0] + [struct.unpack_from('<I', wim, offset + 4*i)[0] for i in range(nchunks - 1)]
base = offset + 4*(nchunks - 1)
ends = table[1:] + [size - 4*(nchunks - 1)]
print('chunk size', chunk_size, 'chunks', nchunks, 'flags', hex(flags))
for i in range(nchunks):
    c = wim[base + table[i]: base + ends[i]]
    usize = min(chunk_size, orig - i*chunk_size)
    print(i, len(c), usize, 'stored' if len(c) >= usize else 'compressed')
    open('chunk%d.xpress' % i, 'wb').write(c)
