/* LZNT1 decompression, [MS-XCA] 2.5: chunks of at most 4096 output bytes,
 * each either stored or a series of flag groups of literals and compressed
 * words whose displacement/length split grows with the chunk's output.
 * Bytes in, bytes out: it knows nothing of the container around them. */
#include "etw/etl/xca/xca.h"

#include "src/base/error.h"

#include <string.h>

#define LZNT1_CHUNK_OUTPUT 4096

static inline uint16_t load_le16(const uint8_t *p)
{
  return (uint16_t)(p[0] | p[1] << 8);
}

/* Decodes one compressed chunk body (after its header) into out[*op..].
 * Matches may only reach back to the chunk's own first byte: chunks are
 * independent (2.5). */
static int decode_chunk(const uint8_t *data, size_t data_len, uint8_t *out, size_t out_cap,
                        size_t *op)
{
  const size_t start = *op;
  size_t p = 0, o = start;
  int rc = 0;

  while (p < data_len) {
    unsigned flag = data[p++];
    unsigned bit;
    /* Flag bits past the chunk's end are ignored (2.5.3). */
    for (bit = 0; bit < 8 && p < data_len; bit++, flag >>= 1) {
      size_t done = o - start, disp, len;
      unsigned word, len_bits;

      if (!(flag & 1)) {
        if (o == out_cap) {
          rc = ETWCAP_E_RANGE;
          goto out;
        }
        if (done == LZNT1_CHUNK_OUTPUT) {
          rc = ETWCAP_E_CORRUPT;
          goto out;
        }
        out[o++] = data[p++];
        continue;
      }
      if (data_len - p < 2) {
        rc = ETWCAP_E_CORRUPT; /* a compressed word cut by the chunk's end */
        goto out;
      }
      word = load_le16(data + p);
      p += 2;
      /* 2.5.1.4: the displacement takes M bits, the largest M in 4..12 with
       * 2^(M-1) < U (U = bytes output so far in this chunk), else 4; the
       * length takes the other 16 - M. */
      {
        unsigned m = 4;
        while (m < 12 && ((size_t)1 << m) < done)
          m++;
        len_bits = 16 - m;
      }
      disp = (size_t)(word >> len_bits) + 1;
      len = (size_t)(word & ((1u << len_bits) - 1)) + 3;
      if (disp > done) {
        rc = ETWCAP_E_CORRUPT;
        goto out;
      }
      if (len > LZNT1_CHUNK_OUTPUT - done) {
        rc = ETWCAP_E_CORRUPT;
        goto out;
      }
      if (len > out_cap - o) {
        rc = ETWCAP_E_RANGE;
        goto out;
      }
      {
        /* Front to back: the word may refer to bytes it is writing (2.5.3). */
        const uint8_t *src = out + o - disp;
        uint8_t *dst = out + o, *end = dst + len;
        while (dst < end)
          *dst++ = *src++;
      }
      o += len;
    }
  }
out:
  *op = o;
  return rc;
}

int xca_lznt1_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                         size_t *out_len)
{
  size_t ip = 0, op = 0;
  int rc = 0;

  /* The end-of-buffer header is optional (2.5.1.2): the input's end also
   * ends the buffer. */
  while (ip < in_len) {
    unsigned hdr;
    size_t size;

    if (in_len - ip < 2) {
      rc = ETWCAP_E_TRUNCATED;
      break;
    }
    hdr = load_le16(in + ip);
    if (hdr == 0)
      break; /* End_of_buffer */
    if (((hdr >> 12) & 7) != 3) {
      rc = ETWCAP_E_CORRUPT; /* the signature must be 3 */
      break;
    }
    size = (size_t)(hdr & 0x0FFF) + 3; /* the whole chunk, header included */
    if (size > in_len - ip) {
      rc = ETWCAP_E_TRUNCATED;
      break;
    }
    if (hdr & 0x8000) {
      rc = decode_chunk(in + ip + 2, size - 2, out, out_cap, &op);
      if (rc)
        break;
    } else {
      /* A stored chunk: its size - 2 bytes, copied as they are. */
      if (size - 2 > out_cap - op) {
        rc = ETWCAP_E_RANGE;
        break;
      }
      memcpy(out + op, in + ip + 2, size - 2);
      op += size - 2;
    }
    ip += size;
  }
  *out_len = op;
  return rc;
}
