/* Joining whole raw-deflate streams into one.
 *
 * A compressor without a flush (libdeflate) ends every stream with a block
 * whose BFINAL bit is set, so two such streams cannot simply be
 * concatenated.  deflate_seal turns a stream into one that can be followed
 * by another: it clears the BFINAL bit of the last block and closes the
 * stream with an empty stored block on a byte boundary, the bytes zlib's
 * Z_SYNC_FLUSH writes (RFC 1951 3.2.3 block header, 3.2.4 stored block).
 *
 * Where the last block starts, and the exact bit where it ends, are known
 * only by walking every block and decoding every symbol, so the walk is also
 * a proof that the stream decodes: each code is in its table, each distance
 * reaches only into what was decoded, and the stream decodes to exactly the
 * expected number of bytes.  Nothing is written out.  Knows nothing of zip
 * or ETW. */
#ifndef ETWCAP_DEFLATE_SEAL_H
#define ETWCAP_DEFLATE_SEAL_H

#include <stddef.h>
#include <stdint.h>

/* At most this many bytes are added by deflate_seal. */
#define DEFLATE_SEAL_EXTRA 5u

/* What the walk of a complete raw-deflate stream found. */
struct deflate_walk {
  uint64_t decoded;  /* bytes the stream decodes to */
  size_t final_bit;  /* bit offset of the last block's header (its BFINAL bit) */
  size_t end_bit;    /* bit offset just past the last block's end-of-block code */
};

/* Walks the stream buf[0..len): ETWCAP_E_CORRUPT unless it is one complete
 * raw-deflate stream that ends in its last byte (only zero or padding bits
 * may follow the last block). */
int deflate_seal_walk(const uint8_t *buf, size_t len, struct deflate_walk *out);

/* Seals the stream buf[0..len), which must decode to `decoded` bytes, in
 * place; `cap` is buf's size and must leave DEFLATE_SEAL_EXTRA bytes beyond
 * len.  *sealed_len receives the new length.  ETWCAP_E_CORRUPT when the
 * stream does not walk or decodes to another size, ETWCAP_E_RANGE when cap
 * is short; buf is unchanged on error. */
int deflate_seal(uint8_t *buf, size_t len, size_t cap, uint64_t decoded, size_t *sealed_len);

/* The two bytes of an empty final block (fixed Huffman codes, then the
 * end-of-block code, RFC 1951 3.2.6): what ends a sequence of sealed
 * streams. */
extern const uint8_t deflate_seal_final_block[2];

#endif
