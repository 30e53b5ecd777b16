/* Plain LZ77 decompression, [MS-XCA] 2.4.4: the "XPRESS" format of every
 * compressed ETL buffer seen so far, so it sits on the hot path of reading a
 * compressed trace and is written for speed (runs of literals found with one
 * count-leading-zeros, matches copied a word at a time where the spec's
 * byte-at-a-time loop gives the same bytes).  Bytes in, bytes out: it knows
 * nothing of ETL buffers. */
#include "etw/etl/xca/xca.h"

#include "src/base/error.h"

#include <string.h>

static inline uint16_t load_le16(const uint8_t *p)
{
  return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t load_le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Copies a match of len bytes from dist bytes back, front to back, so that a
 * match longer than its distance repeats the bytes it has just written
 * (2.4.4: "aaaaaa" is "a" + [offset 1, length 5]).  slack is how many bytes
 * may be written past the match's end: whole-word copies use it.  A word
 * copy never reads bytes it writes as long as the word is no longer than
 * dist, so it gives exactly the bytes of the spec's byte-at-a-time loop. */
static void copy_match(uint8_t *dst, size_t dist, size_t len, size_t slack)
{
  const uint8_t *src = dst - dist;
  uint8_t *end = dst + len;

  if (slack >= 16 && dist >= 16) {
    do {
      memcpy(dst, src, 16);
      dst += 16;
      src += 16;
    } while (dst < end);
  } else if (slack >= 8 && dist >= 8) {
    do {
      memcpy(dst, src, 8);
      dst += 8;
      src += 8;
    } while (dst < end);
  } else if (dist == 1) {
    memset(dst, *src, len);
  } else {
    while (dst < end)
      *dst++ = *src++;
  }
}

int xca_plain_lz77_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                              size_t *out_len)
{
  size_t ip = 0, op = 0;
  /* Where the last half-used length byte is (2.4.4 LastLengthHalfByte);
   * 0 means none, as 0 is always a flag word, never a length byte. */
  size_t half_byte_at = 0;
  int rc = 0;

  for (;;) {
    uint32_t flags;
    unsigned left = 32;

    if (in_len - ip < 4) {
      rc = ETWCAP_E_TRUNCATED;
      goto done;
    }
    /* Flags are consumed from the top bit down; 0 = literal, 1 = match. */
    flags = load_le32(in + ip);
    ip += 4;

    for (;;) {
      unsigned lits = flags ? (unsigned)__builtin_clz(flags) : 32;
      size_t len, dist;
      unsigned v;

      if (lits > left)
        lits = left;
      if (lits) {
        if (in_len - ip < lits) {
          rc = ETWCAP_E_TRUNCATED;
          goto done;
        }
        if (out_cap - op < lits) {
          rc = ETWCAP_E_RANGE;
          goto done;
        }
        /* At most 32 literals per flag word: one fixed-size copy when both
         * buffers have room, which compiles to a couple of vector moves. */
        if (in_len - ip >= 32 && out_cap - op >= 32)
          memcpy(out + op, in + ip, 32);
        else
          memcpy(out + op, in + ip, lits);
        ip += lits;
        op += lits;
        left -= lits;
        if (!left)
          break;
        flags <<= lits; /* lits < 32 here */
      }

      /* The top flag is now a match. */
      flags <<= 1;
      left--;
      if (ip == in_len)
        goto done; /* 2.4.4: a match flag with no input left ends the stream */
      if (in_len - ip < 2) {
        rc = ETWCAP_E_TRUNCATED;
        goto done;
      }
      v = load_le16(in + ip);
      ip += 2;
      dist = (size_t)(v >> 3) + 1;
      len = v & 7;
      if (len == 7) {
        /* Longer lengths: a half byte (two matches share one byte), then a
         * byte, then 16 bits, then 32 bits. */
        if (half_byte_at == 0) {
          if (ip >= in_len) {
            rc = ETWCAP_E_TRUNCATED;
            goto done;
          }
          len = in[ip] & 15;
          half_byte_at = ip++;
        } else {
          len = in[half_byte_at] >> 4;
          half_byte_at = 0;
        }
        if (len == 15) {
          if (ip >= in_len) {
            rc = ETWCAP_E_TRUNCATED;
            goto done;
          }
          len = in[ip++];
          if (len == 255) {
            if (in_len - ip < 2) {
              rc = ETWCAP_E_TRUNCATED;
              goto done;
            }
            len = load_le16(in + ip);
            ip += 2;
            if (len == 0) {
              if (in_len - ip < 4) {
                rc = ETWCAP_E_TRUNCATED;
                goto done;
              }
              len = load_le32(in + ip);
              ip += 4;
            }
            if (len < 15 + 7) {
              rc = ETWCAP_E_CORRUPT;
              goto done;
            }
            len -= 15 + 7;
          }
          len += 15;
        }
        len += 7;
      }
      len += 3; /* size_t: a 32-bit length cannot wrap here (4.1) */
      if (dist > op) {
        rc = ETWCAP_E_CORRUPT;
        goto done;
      }
      if (len > out_cap - op) {
        rc = ETWCAP_E_RANGE;
        goto done;
      }
      copy_match(out + op, dist, len, out_cap - op - len);
      op += len;
      if (!left)
        break;
    }
  }

done:
  *out_len = op;
  return rc;
}
