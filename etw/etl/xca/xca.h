/* The three [MS-XCA] decompressors an ETL file can name in its first buffer
 * (State & 0xFFFF: 2 LZNT1, 3 XPRESS = Plain LZ77, 4 XPRESS_HUFF =
 * LZ77+Huffman).  Pure functions over caller-owned buffers: no I/O, no
 * logging, no global state.  They never read outside in[0..in_len) nor write
 * outside out[0..out_cap), whatever the input.
 *
 * Common contract:
 *   returns 0 and sets *out_len to the number of bytes produced, or
 *   ETWCAP_E_TRUNCATED  the input ends inside an item,
 *   ETWCAP_E_CORRUPT    the input is not valid (e.g. a match that reaches
 *                       before the start of the output, a bad header),
 *   ETWCAP_E_RANGE      the output would exceed out_cap,
 *   ETWCAP_E_NOMEM      (LZ77+Huffman only) its decoding table could not be
 *                       allocated.
 *   On error *out_len is the number of bytes written so far and the output
 *   is garbage.  Bytes of out[] past *out_len (up to out_cap) may have been
 *   scribbled on: the fast copy loops write whole words when there is room.
 *   A caller that knows the decompressed size (an ETL buffer decompresses to
 *   Offset - 72 bytes) passes it as out_cap and checks *out_len against it. */
#ifndef ETWCAP_XCA_H
#define ETWCAP_XCA_H

#include <stddef.h>
#include <stdint.h>

/* Plain LZ77 ([MS-XCA] 2.4; "XPRESS", COMPRESSION_FORMAT_XPRESS = 3).
 * The stream ends itself: a match flag with no input left (2.4.4), so
 * out_cap may be larger than the result.  This is the one real compressed
 * ETL files use, and it is written for speed. */
int xca_plain_lz77_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                              size_t *out_len);

/* LZ77+Huffman ([MS-XCA] 2.2; "XPRESS_HUFF", COMPRESSION_FORMAT_XPRESS_HUFF
 * = 4; the WIM "XPRESS" chunk format).  Blocks of 64 KiB of output, each
 * with its own 256-byte table of code lengths, the next block's table
 * where the previous block's bit stream stops.  Allocates (and frees) a
 * 64 KiB decoding table per call.  Symbol 256 is both the
 * end-of-data mark and an ordinary match (length 3, distance 1), so the
 * stream cannot always say where it ends: decoding stops with success when
 * out_cap bytes have been produced, at a block boundary with less than a
 * table's worth of input left (2.2.4), or at a symbol 256 that is followed
 * only by zero padding in the last input word.  Pass the exact decompressed
 * size as out_cap whenever it is known (WIM chunk size, ETL Offset - 72). */
int xca_lz77_huffman_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                                size_t *out_len);

/* LZNT1 ([MS-XCA] 2.5; COMPRESSION_FORMAT_LZNT1 = 2; NTFS compression).
 * A series of chunks, each 4096 bytes of output at most, ended by a zero
 * chunk header or by the end of the input.  Each chunk's output follows the
 * previous one's directly, as 2.5 describes; a chunk shorter than 4096 bytes
 * in the middle of a buffer is not padded with zeros (Windows' own
 * behaviour there is not in the spec and is not reproduced). */
int xca_lznt1_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                         size_t *out_len);

#endif
