/* LZ77+Huffman decompression, [MS-XCA] 2.2.4 ("XPRESS_HUFF"; WIM's
 * "XPRESS"): blocks of 64 KiB of output, each starting with 256 bytes of
 * 4-bit code lengths for 512 symbols, then a bit stream read in 16-bit
 * little-endian words through a 32-bit register, with long-match length
 * bytes placed between those words.  Bytes in, bytes out: it knows nothing of
 * the container around them. */
#include "etw/etl/xca/xca.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#define HUFF_SYMBOLS 512
#define HUFF_MAX_BITS 15
#define HUFF_TABLE_SIZE (1u << HUFF_MAX_BITS)
#define HUFF_LENGTHS_BYTES (HUFF_SYMBOLS / 2)
#define HUFF_BLOCK_OUTPUT ((size_t)65536)
#define HUFF_END_OF_DATA 256

static inline uint16_t load_le16(const uint8_t *p)
{
  return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t load_le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The bit reader of 2.2.4: `next` holds 16 + `extra` unread bits at its top.
 * Words past the input's end read as zero and are counted in `virt`, so a
 * stream whose last symbols sit in its final word decodes; a symbol that
 * needs any of those invented bits is an error (see bits_overrun). */
struct bit_reader {
  const uint8_t *in;
  size_t in_len;
  size_t pos; /* CurrentPosition: the next input byte not yet loaded */
  uint32_t next;
  int extra;
  unsigned virt;
};

static void bits_consume(struct bit_reader *br, unsigned n)
{
  br->next <<= n; /* n <= 15 */
  br->extra -= (int)n;
  if (br->extra < 0) {
    uint32_t word = 0;
    if (br->in_len - br->pos >= 2) {
      word = load_le16(br->in + br->pos);
      br->pos += 2;
    } else {
      br->virt++;
    }
    br->next |= word << -br->extra;
    br->extra += 16;
  }
}

/* True when the bits consumed so far run into words the input lacks. */
static int bits_overrun(const struct bit_reader *br)
{
  return br->virt && 16 * (long)br->virt > 16 + br->extra;
}

/* True when no whole input word is left to load and every bit left from
 * real input is zero: what follows a final end-of-data symbol (the
 * encoder's FlushBits pads with zeros). */
static int bits_rest_zero(const struct bit_reader *br)
{
  int real = 16 + br->extra - 16 * (int)br->virt;
  return br->in_len - br->pos < 2 && (real <= 0 || (br->next >> (32 - real)) == 0);
}

/* Called with the output full: 0 when the stream ends here too (only zero
 * padding left, or an end-of-data symbol and zero padding), else
 * ETWCAP_E_RANGE, or ETWCAP_E_TRUNCATED when the input stops inside the
 * symbol that would tell. */
static int check_stream_ends(const struct bit_reader *br, const uint8_t *lens,
                             const uint16_t *table)
{
  struct bit_reader peek = *br;
  unsigned sym;
  if (bits_rest_zero(br))
    return 0;
  sym = table[peek.next >> (32 - HUFF_MAX_BITS)];
  if (sym != HUFF_END_OF_DATA)
    return ETWCAP_E_RANGE;
  bits_consume(&peek, lens[sym]);
  if (bits_overrun(&peek))
    return ETWCAP_E_TRUNCATED;
  return bits_rest_zero(&peek) ? 0 : ETWCAP_E_RANGE;
}

/* 2.2.4's decoding table: 2^(15 - len) entries per symbol, in order of
 * (length, symbol); the lengths must fill the table exactly. */
static int build_table(const uint8_t *packed, uint8_t *lens, uint16_t *table)
{
  unsigned count[HUFF_MAX_BITS + 1] = { 0 };
  unsigned sym, bits;
  size_t entry = 0;

  for (sym = 0; sym < HUFF_SYMBOLS; sym++) {
    lens[sym] = (uint8_t)((packed[sym / 2] >> (4 * (sym & 1))) & 15);
    count[lens[sym]]++;
  }
  for (bits = 1; bits <= HUFF_MAX_BITS; bits++) {
    size_t span = (size_t)1 << (HUFF_MAX_BITS - bits);
    if (!count[bits])
      continue;
    for (sym = 0; sym < HUFF_SYMBOLS; sym++) {
      size_t i;
      if (lens[sym] != bits)
        continue;
      if (span > HUFF_TABLE_SIZE - entry)
        return ETWCAP_E_CORRUPT;
      for (i = 0; i < span; i++)
        table[entry++] = (uint16_t)sym;
    }
  }
  return entry == HUFF_TABLE_SIZE ? 0 : ETWCAP_E_CORRUPT;
}

/* Decodes one block into out[*op..] until 64 KiB of output, out_cap, or the
 * end-of-data symbol (*ended = 1). */
static int decode_block(struct bit_reader *br, const uint8_t *lens, const uint16_t *table,
                        uint8_t *out, size_t out_cap, size_t *op, int *ended)
{
  const size_t block_start = *op;
  size_t o = block_start;
  int rc = 0;

  while (o - block_start < HUFF_BLOCK_OUTPUT) {
    unsigned sym, obits;
    size_t len, dist;

    if (o == out_cap) {
      /* All the output the caller has room for: fine if the stream ends
       * here too (only zero padding left, or an end-of-data symbol). */
      rc = check_stream_ends(br, lens, table);
      *ended = 1;
      break;
    }
    sym = table[br->next >> (32 - HUFF_MAX_BITS)];
    bits_consume(br, lens[sym]);
    if (bits_overrun(br)) {
      rc = ETWCAP_E_TRUNCATED;
      break;
    }
    if (sym < 256) {
      out[o++] = (uint8_t)sym;
      continue;
    }
    if (sym == HUFF_END_OF_DATA && bits_rest_zero(br)) {
      *ended = 1;
      break;
    }
    sym -= 256;
    len = sym & 15;
    obits = sym >> 4;
    if (len == 15) {
      /* Long lengths: a byte, then 16 (then 32) bits, at CurrentPosition,
       * between the words of the bit stream. */
      if (br->pos >= br->in_len) {
        rc = ETWCAP_E_TRUNCATED;
        break;
      }
      len = br->in[br->pos++];
      if (len == 255) {
        if (br->in_len - br->pos < 2) {
          rc = ETWCAP_E_TRUNCATED;
          break;
        }
        len = load_le16(br->in + br->pos);
        br->pos += 2;
        if (len == 0) {
          /* The encoder of 2.1.4.3 writes 16 bits of 0 then 32 bits for
           * lengths that do not fit 16 (2.2.4's decoder omits this). */
          if (br->in_len - br->pos < 4) {
            rc = ETWCAP_E_TRUNCATED;
            break;
          }
          len = load_le32(br->in + br->pos);
          br->pos += 4;
        }
        if (len < 15) {
          rc = ETWCAP_E_CORRUPT;
          break;
        }
        len -= 15;
      }
      len += 15;
    }
    len += 3;
    dist = ((size_t)1 << obits) + (obits ? br->next >> (32 - obits) : 0);
    bits_consume(br, obits);
    if (bits_overrun(br)) {
      rc = ETWCAP_E_TRUNCATED;
      break;
    }
    if (dist > o) {
      rc = ETWCAP_E_CORRUPT;
      break;
    }
    if (len > out_cap - o) {
      rc = ETWCAP_E_RANGE;
      break;
    }
    {
      /* Front to back: a match may repeat the bytes it is writing. */
      const uint8_t *src = out + o - dist;
      uint8_t *dst = out + o, *end = dst + len;
      while (dst < end)
        *dst++ = *src++;
    }
    o += len;
  }
  *op = o;
  return rc;
}

int xca_lz77_huffman_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                                size_t *out_len)
{
  uint8_t lens[HUFF_SYMBOLS];
  uint16_t *table;
  struct bit_reader br = { in, in_len, 0, 0, 0, 0 };
  size_t op = 0;
  int rc = 0, ended = 0;

  *out_len = 0;
  /* 64 KiB: too big for the stack of every thread that might call us. */
  table = etwcap_malloc(HUFF_TABLE_SIZE * sizeof(*table));
  if (!table)
    return ETWCAP_E_NOMEM;

  while (!ended) {
    if (in_len - br.pos < HUFF_LENGTHS_BYTES) {
      /* 2.2.4: no room for another table.  After a full block that is the
       * end of the data; before any output it is a truncated stream. */
      if (op == 0 && out_cap > 0)
        rc = ETWCAP_E_TRUNCATED;
      break;
    }
    if (op == out_cap) {
      rc = ETWCAP_E_RANGE; /* another block follows a full output */
      break;
    }
    rc = build_table(in + br.pos, lens, table);
    if (rc)
      break;
    br.pos += HUFF_LENGTHS_BYTES;
    if (in_len - br.pos < 4) {
      rc = ETWCAP_E_TRUNCATED;
      break;
    }
    br.next = (uint32_t)load_le16(in + br.pos) << 16 | load_le16(in + br.pos + 2);
    br.pos += 4;
    br.extra = 16;
    br.virt = 0;
    rc = decode_block(&br, lens, table, out, out_cap, &op, &ended);
    if (rc)
      break;
    if (br.virt)
      break; /* the input is used up: no further block can start */
  }
  etwcap_free(table);
  *out_len = op;
  return rc;
}
