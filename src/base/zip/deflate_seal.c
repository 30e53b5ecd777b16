/* Sealing a raw-deflate stream so another can follow it (see
 * deflate_seal.h).  The format is RFC 1951: block headers 3.2.3, stored
 * blocks 3.2.4, fixed codes 3.2.6, dynamic code lengths 3.2.7, canonical
 * codes 3.2.2, length and distance codes 3.2.5. */
#include "src/base/zip/deflate_seal.h"

#include "src/base/error.h"

#include <string.h>

#define MAX_BITS 15
/* Codes up to FAST_BITS long are decoded with one table look-up.  A longer
 * code stands for a symbol used less than once in 2^FAST_BITS symbols, so
 * decoding those bit by bit from the code counts costs little, and the
 * table stays small enough to rebuild for every block cheaply. */
#define FAST_BITS 10
#define FAST_SIZE (1u << FAST_BITS)
#define LITLEN_CODES 288
#define DIST_CODES 32

const uint8_t deflate_seal_final_block[2] = {0x03, 0x00};

/* 3.2.5: lengths of codes 257..285 and distances of codes 0..29. */
static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10,  11,  13,
                                         15, 17, 19, 23, 27, 31, 35, 43,  51,  59,
                                         67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,    65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* 3.2.7: the order in which code-length code lengths are sent. */
static const uint8_t code_length_order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                              11, 4,  12, 3, 13, 2, 14, 1, 15};

/* A canonical Huffman code. */
struct huffman {
  uint16_t fast[FAST_SIZE];      /* symbol << 4 | length; 0: longer, or no such code */
  uint16_t count[MAX_BITS + 1];  /* codes of each length */
  uint16_t symbol[LITLEN_CODES]; /* symbols in canonical order */
};

struct walker {
  const uint8_t *buf;
  size_t len;      /* bytes in buf */
  size_t pos;      /* next bit */
  uint64_t out;    /* bytes decoded so far */
  struct huffman litlen, dist;
};

/* The next n (<= 32) bits, least significant first, without consuming
 * them.  Bits past the end read as 0; the callers' position checks then
 * refuse the stream. */
static uint32_t peek(const struct walker *w, unsigned n)
{
  size_t byte = w->pos >> 3, have = byte < w->len ? w->len - byte : 0, i;
  const uint8_t *p = w->buf + byte;
  uint64_t v = 0;
  if (have >= 8) {
    v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
        (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
        (uint64_t)p[7] << 56;
  } else {
    for (i = 0; i < have; i++)
      v |= (uint64_t)p[i] << (8 * i);
  }
  return (uint32_t)((v >> (w->pos & 7)) & ((1ull << n) - 1));
}

static uint32_t take(struct walker *w, unsigned n)
{
  uint32_t v = peek(w, n);
  w->pos += n;
  return v;
}

static int overrun(const struct walker *w)
{
  return w->pos > w->len * 8;
}

static uint32_t reversed(uint32_t code, unsigned len)
{
  uint32_t r = 0;
  unsigned i;
  for (i = 0; i < len; i++)
    r = (r << 1) | ((code >> i) & 1);
  return r;
}

/* Which incomplete codes a stream may have.  RFC 1951 says only that one
 * distance code of one bit is allowed (3.2.7); zlib's and libdeflate's
 * inflaters refuse every other incomplete code-length code and accept a
 * literal/length or distance code whose only code is one bit long, or a
 * distance code with no code at all.  The walk accepts exactly what they
 * accept, so a sealed stream decodes in every inflater. */
enum code_kind { CODE_LENGTHS, CODE_SYMBOLS };

/* The code of `count` symbols with these lengths (0: unused).  An
 * over-subscribed set is corrupt, and so is an incomplete one except as
 * above; the missing codes of an allowed one fail to decode. */
static int build(struct huffman *h, const uint8_t *lengths, unsigned count, enum code_kind kind)
{
  uint16_t offset[MAX_BITS + 2];
  int32_t left = 1;
  uint32_t code = 0;
  unsigned len, sym, index = 0, i, longest = 0;

  memset(h->count, 0, sizeof(h->count));
  for (sym = 0; sym < count; sym++)
    h->count[lengths[sym]]++;
  h->count[0] = 0;
  offset[1] = 0;
  for (len = 1; len <= MAX_BITS; len++) {
    left = left * 2 - h->count[len];
    if (left < 0)
      return ETWCAP_E_CORRUPT;
    if (h->count[len])
      longest = len;
    offset[len + 1] = (uint16_t)(offset[len] + h->count[len]);
  }
  if (left > 0 && longest > 0 && (kind == CODE_LENGTHS || longest != 1))
    return ETWCAP_E_CORRUPT;
  for (sym = 0; sym < count; sym++)
    if (lengths[sym])
      h->symbol[offset[lengths[sym]]++] = (uint16_t)sym;

  memset(h->fast, 0, sizeof(h->fast));
  for (len = 1; len <= FAST_BITS; len++, code <<= 1)
    for (i = 0; i < h->count[len]; i++, code++, index++) {
      uint32_t slot;
      for (slot = reversed(code, len); slot < FAST_SIZE; slot += 1u << len)
        h->fast[slot] = (uint16_t)(h->symbol[index] << 4 | len);
    }
  return 0;
}

static int decode(struct walker *w, const struct huffman *h, unsigned *sym)
{
  uint32_t bits = peek(w, MAX_BITS);
  uint16_t e = h->fast[bits & (FAST_SIZE - 1)];
  int32_t code = 0, first = 0, index = 0;
  unsigned len;

  if (e) {
    w->pos += e & 15;
    *sym = e >> 4;
    return 0;
  }
  /* Canonical decoding: codes of one length are consecutive numbers. */
  for (len = 1; len <= MAX_BITS; len++) {
    int32_t n = h->count[len];
    code |= (int32_t)((bits >> (len - 1)) & 1);
    if (code - n < first) {
      w->pos += len;
      *sym = h->symbol[index + (code - first)];
      return 0;
    }
    index += n;
    first = (first + n) * 2;
    code *= 2;
  }
  return ETWCAP_E_CORRUPT;
}

static int fixed_codes(struct walker *w)
{
  uint8_t lengths[LITLEN_CODES + DIST_CODES];
  int rc;
  memset(lengths, 8, 144);
  memset(lengths + 144, 9, 256 - 144);
  memset(lengths + 256, 7, 280 - 256);
  memset(lengths + 280, 8, LITLEN_CODES - 280);
  memset(lengths + LITLEN_CODES, 5, DIST_CODES);
  rc = build(&w->litlen, lengths, LITLEN_CODES, CODE_SYMBOLS);
  return rc ? rc : build(&w->dist, lengths + LITLEN_CODES, DIST_CODES, CODE_SYMBOLS);
}

static int dynamic_codes(struct walker *w)
{
  unsigned nlit = take(w, 5) + 257, ndist = take(w, 5) + 1, nclen = take(w, 4) + 4;
  uint8_t clen[19] = {0}, lengths[286 + 30];
  unsigned i, n = 0;
  int rc;

  if (nlit > 286 || ndist > 30)
    return ETWCAP_E_CORRUPT;
  for (i = 0; i < nclen; i++)
    clen[code_length_order[i]] = (uint8_t)take(w, 3);
  /* The code-length code is needed only here: build it in `dist`. */
  if ((rc = build(&w->dist, clen, 19, CODE_LENGTHS)) != 0)
    return rc;
  while (n < nlit + ndist) {
    unsigned sym, repeat = 1;
    uint8_t value;
    if ((rc = decode(w, &w->dist, &sym)) != 0)
      return rc;
    value = (uint8_t)sym;
    if (sym == 16) {
      if (n == 0)
        return ETWCAP_E_CORRUPT;
      value = lengths[n - 1];
      repeat = 3 + take(w, 2);
    } else if (sym == 17) {
      value = 0;
      repeat = 3 + take(w, 3);
    } else if (sym == 18) {
      value = 0;
      repeat = 11 + take(w, 7);
    }
    if (n + repeat > nlit + ndist || overrun(w))
      return ETWCAP_E_CORRUPT;
    memset(lengths + n, value, repeat);
    n += repeat;
  }
  if (lengths[256] == 0)
    return ETWCAP_E_CORRUPT; /* a block that cannot end */
  rc = build(&w->litlen, lengths, nlit, CODE_SYMBOLS);
  return rc ? rc : build(&w->dist, lengths + nlit, ndist, CODE_SYMBOLS);
}

static int walk_symbols(struct walker *w)
{
  for (;;) {
    unsigned sym, dsym;
    uint64_t distance;
    int rc = decode(w, &w->litlen, &sym);
    if (rc)
      return rc;
    if (sym < 256) {
      w->out++;
    } else if (sym == 256) {
      return overrun(w) ? ETWCAP_E_CORRUPT : 0;
    } else {
      unsigned length;
      if (sym > 285)
        return ETWCAP_E_CORRUPT;
      length = length_base[sym - 257] + take(w, length_extra[sym - 257]);
      if ((rc = decode(w, &w->dist, &dsym)) != 0)
        return rc;
      if (dsym > 29)
        return ETWCAP_E_CORRUPT;
      distance = distance_base[dsym] + take(w, distance_extra[dsym]);
      /* The match must start inside what was decoded before it. */
      if (distance > w->out)
        return ETWCAP_E_CORRUPT;
      w->out += length;
    }
    if (overrun(w))
      return ETWCAP_E_CORRUPT;
  }
}

int deflate_seal_walk(const uint8_t *buf, size_t len, struct deflate_walk *out)
{
  struct walker w;
  for (memset(&w, 0, sizeof(w)), w.buf = buf, w.len = len;;) {
    size_t header = w.pos;
    unsigned final = take(&w, 1), type = take(&w, 2);
    int rc;
    if (type == 0) {
      uint32_t n, check;
      w.pos = (w.pos + 7) & ~(size_t)7;
      n = take(&w, 16);
      check = take(&w, 16);
      if ((n ^ 0xFFFFu) != check)
        return ETWCAP_E_CORRUPT;
      w.pos += (size_t)n * 8;
      w.out += n;
      rc = overrun(&w) ? ETWCAP_E_CORRUPT : 0;
    } else if (type == 1) {
      rc = fixed_codes(&w);
      rc = rc ? rc : walk_symbols(&w);
    } else if (type == 2) {
      rc = dynamic_codes(&w);
      rc = rc ? rc : walk_symbols(&w);
    } else {
      rc = ETWCAP_E_CORRUPT; /* block type 3 is reserved */
    }
    if (rc)
      return rc;
    if (final) {
      /* Only the padding of the last byte may follow the last block. */
      if ((w.pos + 7) / 8 != len)
        return ETWCAP_E_CORRUPT;
      out->decoded = w.out;
      out->final_bit = header;
      out->end_bit = w.pos;
      return 0;
    }
  }
}

int deflate_seal(uint8_t *buf, size_t len, size_t cap, uint64_t decoded, size_t *sealed_len)
{
  struct deflate_walk walk;
  size_t end, i;
  int rc = deflate_seal_walk(buf, len, &walk);
  if (rc)
    return rc;
  if (walk.decoded != decoded)
    return ETWCAP_E_CORRUPT;
  /* Three zero bits (BFINAL 0, BTYPE 00), zero padding to the byte, then
   * LEN 0 and NLEN 0xFFFF. */
  end = (walk.end_bit + 3 + 7) / 8 + 4;
  if (end > cap)
    return ETWCAP_E_RANGE;
  buf[walk.final_bit >> 3] &= (uint8_t)~(1u << (walk.final_bit & 7));
  /* Keep the bits before end_bit in its byte; that byte is past len when
   * the stream ended on a byte boundary. */
  i = walk.end_bit >> 3;
  buf[i] = i < len ? (uint8_t)(buf[i] & ((1u << (walk.end_bit & 7)) - 1)) : 0;
  for (i++; i < end - 4; i++)
    buf[i] = 0;
  buf[end - 4] = 0x00;
  buf[end - 3] = 0x00;
  buf[end - 2] = 0xFF;
  buf[end - 1] = 0xFF;
  *sealed_len = end;
  return 0;
}
