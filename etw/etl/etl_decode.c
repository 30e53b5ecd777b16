/* Event record decoding (see etl_decode.h).  Layouts and offsets are from
 * docs/etl.md §4; every length is checked against the record's Size and
 * the buffer's filled end before a byte is read. */
#include "etw/etl/etl_decode.h"

#include "etw/etl/etl_bytes.h"
#include "src/base/error.h"

#include <stddef.h>
#include <string.h>

#define FLAGS_HEADER 0xC0u  /* TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE */
#define FLAGS_MESSAGE 0x90u /* TRACE_HEADER_FLAG | TRACE_MESSAGE */
#define EVENT_HEADER_FLAG_EXTENDED_INFO 0x0001u

static int corrupt(const char **why, const char *text)
{
  *why = text;
  return ETWCAP_E_CORRUPT;
}

/* SYSTEM, COMPACT and PERFINFO share the marker's Version field: bit 0x8000
 * (PEBS) adds 8 bytes and bits 0x0700 count 8-byte PMC values, all between
 * the fixed header and the payload. */
static uint32_t kernel_extra(uint16_t version)
{
  uint32_t extra = (version & 0x8000u) ? 8u : 0u;
  return extra + 8u * ((version & 0x0700u) >> 8);
}

static int decode_kernel(const uint8_t *r, uint32_t size, uint32_t fixed,
                         struct etw_event *ev, const char **why)
{
  uint16_t version = etl_le16(r);
  uint32_t hdr = fixed + kernel_extra(version);
  if (size < hdr)
    return corrupt(why, "kernel event smaller than its header");
  ev->is_kernel = 1;
  ev->version = (uint8_t)version;
  ev->hook_id = etl_le16(r + 6);
  ev->group = (uint8_t)(ev->hook_id >> 8);
  ev->opcode = (uint8_t)ev->hook_id;
  ev->has |= ETW_HAS_TIMESTAMP;
  if (fixed == 0x10) { /* PERFINFO: no thread or process */
    ev->timestamp = etl_le64(r + 8);
  } else {
    ev->tid = etl_le32(r + 8);
    ev->pid = etl_le32(r + 12);
    ev->timestamp = etl_le64(r + 16);
    ev->has |= ETW_HAS_PID_TID;
    if (fixed == 0x20)
      ev->processor_time = etl_le64(r + 24);
  }
  ev->user_data = r + hdr;
  ev->user_len = size - hdr;
  return 0;
}

static int decode_classic(const uint8_t *r, uint32_t size, uint32_t fixed,
                          struct etw_event *ev, const char **why)
{
  if (size < fixed)
    return corrupt(why, "classic event smaller than its header");
  ev->opcode = r[4];
  ev->level = r[5];
  ev->version = (uint8_t)etl_le16(r + 6);
  ev->tid = etl_le32(r + 8);
  ev->pid = etl_le32(r + 12);
  ev->timestamp = etl_le64(r + 16);
  ev->provider = guid_from_bytes(r + 0x18);
  ev->processor_time = etl_le64(r + 0x28);
  ev->has |= ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER;
  if (fixed == 0x48) {
    ev->instance_id = etl_le32(r + 0x30);
    ev->parent_instance_id = etl_le32(r + 0x34);
    ev->parent_guid = guid_from_bytes(r + 0x38);
  }
  ev->user_data = r + fixed;
  ev->user_len = size - fixed;
  return 0;
}

static int decode_event_header(const uint8_t *r, uint32_t size, struct etw_event *ev,
                               const char **why)
{
  uint32_t pos = 0x50;
  if (size < 0x50)
    return corrupt(why, "EVENT_HEADER event smaller than 80 bytes");
  ev->flags = etl_le16(r + 4);
  ev->event_property = etl_le16(r + 6);
  ev->tid = etl_le32(r + 8);
  ev->pid = etl_le32(r + 12);
  ev->timestamp = etl_le64(r + 16);
  ev->provider = guid_from_bytes(r + 0x18);
  ev->id = etl_le16(r + 0x28);
  ev->version = r[0x2A];
  ev->channel = r[0x2B];
  ev->level = r[0x2C];
  ev->opcode = r[0x2D];
  ev->task = etl_le16(r + 0x2E);
  ev->keyword = etl_le64(r + 0x30);
  ev->processor_time = etl_le64(r + 0x38);
  ev->activity_id = guid_from_bytes(r + 0x40);
  ev->has |= ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
  if (ev->flags & EVENT_HEADER_FLAG_EXTENDED_INFO) {
    /* On disk each item is {u16 ItemSize, u16 ExtType, u16 Linkage,
     * u16 DataSize, data}; Linkage bit 0 says another item follows. */
    for (;;) {
      uint16_t item_size, data_size, linkage;
      if (pos + 8 > size)
        return corrupt(why, "extended data item runs past the event");
      item_size = etl_le16(r + pos);
      linkage = etl_le16(r + pos + 4);
      data_size = etl_le16(r + pos + 6);
      if (item_size < 8 || pos + item_size > size || data_size > item_size - 8)
        return corrupt(why, "extended data item has an impossible size");
      if (ev->ext_count >= ETW_EVENT_MAX_EXT)
        return corrupt(why, "more than 16 extended data items");
      ev->ext[ev->ext_count].type = etl_le16(r + pos + 2);
      ev->ext[ev->ext_count].size = data_size;
      ev->ext[ev->ext_count].data = r + pos + 8;
      ev->ext_count++;
      pos += item_size;
      if (!(linkage & 1))
        break;
    }
  }
  ev->user_data = r + pos;
  ev->user_len = size - pos;
  return 0;
}

/* MESSAGE_TRACE_HEADER: optional fields packed after the 8 bytes in the
 * order of TraceMessage: sequence, component id or GUID, timestamp, thread
 * and process.  OptionFlags 0x10 only says which clock the timestamp uses.
 * Component id and GUID are exclusive; the component id is checked first. */
static int decode_message(const uint8_t *r, uint32_t size, struct etw_event *ev,
                          const char **why)
{
  uint32_t pos = 8;
  uint16_t opt;
  if (size < 8)
    return corrupt(why, "MESSAGE event smaller than 8 bytes");
  ev->id = etl_le16(r + 4);
  opt = etl_le16(r + 6);
  ev->event_property = opt;
  if (opt & 0x01) {
    if (pos + 4 > size)
      return corrupt(why, "MESSAGE sequence field runs past the event");
    ev->sequence = etl_le32(r + pos);
    pos += 4;
  }
  if (opt & 0x04) {
    if (pos + 4 > size)
      return corrupt(why, "MESSAGE component id runs past the event");
    ev->component_id = etl_le32(r + pos);
    pos += 4;
  } else if (opt & 0x02) {
    if (pos + 16 > size)
      return corrupt(why, "MESSAGE GUID runs past the event");
    ev->provider = guid_from_bytes(r + pos);
    ev->has |= ETW_HAS_PROVIDER;
    pos += 16;
  }
  if (opt & 0x08) {
    if (pos + 8 > size)
      return corrupt(why, "MESSAGE timestamp runs past the event");
    ev->timestamp = etl_le64(r + pos);
    ev->has |= ETW_HAS_TIMESTAMP;
    pos += 8;
  }
  if (opt & 0x20) {
    if (pos + 8 > size)
      return corrupt(why, "MESSAGE thread/process ids run past the event");
    ev->tid = etl_le32(r + pos);
    ev->pid = etl_le32(r + pos + 4);
    ev->has |= ETW_HAS_PID_TID;
    pos += 8;
  }
  ev->user_data = r + pos;
  ev->user_len = size - pos;
  return 0;
}

/* Zeroes every field but ext[] (whose entries are written before use) and
 * the caller's cpu/buffer_index.  Field by field rather than memset: the
 * compiler merges these into a few wide stores, and this runs per event. */
static void clear_event(struct etw_event *ev)
{
  static const struct etw_guid zero_guid;
  ev->pointer_size = 0;
  ev->is_kernel = 0;
  ev->has = 0;
  ev->timestamp = 0;
  ev->provider = zero_guid;
  ev->hook_id = 0;
  ev->group = 0;
  ev->id = 0;
  ev->version = 0;
  ev->channel = 0;
  ev->level = 0;
  ev->opcode = 0;
  ev->task = 0;
  ev->keyword = 0;
  ev->pid = 0;
  ev->tid = 0;
  ev->flags = 0;
  ev->event_property = 0;
  ev->activity_id = zero_guid;
  ev->processor_time = 0;
  ev->instance_id = 0;
  ev->parent_instance_id = 0;
  ev->parent_guid = zero_guid;
  ev->sequence = 0;
  ev->component_id = 0;
  ev->ext_count = 0;
  ev->user_data = NULL;
  ev->user_len = 0;
}

int etl_decode_event(const uint8_t *buf, uint32_t end, uint32_t pos, struct etw_event *ev,
                     uint32_t *next, const char **why)
{
  const uint8_t *r;
  uint32_t marker, size, room;
  uint8_t flags, type;
  int rc;

  *why = NULL;
  if (pos >= end || end - pos < 4)
    return ETL_DECODE_END;
  r = buf + pos;
  marker = etl_le32(r);
  if (marker == 0xFFFFFFFFu) /* the padding after the last event */
    return ETL_DECODE_END;
  flags = (uint8_t)(marker >> 24);
  type = (uint8_t)(marker >> 16);
  room = end - pos;

  clear_event(ev);

  if (flags == FLAGS_MESSAGE) {
    ev->header_type = ETW_HDR_MESSAGE;
    size = etl_le16(r);
  } else if (flags == FLAGS_HEADER) {
    ev->header_type = (enum etw_header_type)type;
    switch (type) {
    case ETW_HDR_SYSTEM32: case ETW_HDR_SYSTEM64:
    case ETW_HDR_COMPACT32: case ETW_HDR_COMPACT64:
    case ETW_HDR_PERFINFO32: case ETW_HDR_PERFINFO64:
      if (room < 8)
        return corrupt(why, "kernel event header cut by the buffer end");
      size = etl_le16(r + 4);
      break;
    case ETW_HDR_FULL32: case ETW_HDR_FULL64:
    case ETW_HDR_INSTANCE32: case ETW_HDR_INSTANCE64:
    case ETW_HDR_EVENT_HEADER32: case ETW_HDR_EVENT_HEADER64:
    case ETW_HDR_MESSAGE: /* type 0x0F: the same MESSAGE header (§4 table) */
      size = etl_le16(r);
      break;
    default:
      return corrupt(why, "unsupported trace header type");
    }
  } else {
    return corrupt(why, "not an event marker");
  }
  if (size > room)
    return corrupt(why, "event size runs past the filled end of the buffer");

  switch (ev->header_type) {
  case ETW_HDR_SYSTEM32: case ETW_HDR_SYSTEM64:
    rc = decode_kernel(r, size, 0x20, ev, why);
    break;
  case ETW_HDR_COMPACT32: case ETW_HDR_COMPACT64:
    rc = decode_kernel(r, size, 0x18, ev, why);
    break;
  case ETW_HDR_PERFINFO32: case ETW_HDR_PERFINFO64:
    rc = decode_kernel(r, size, 0x10, ev, why);
    break;
  case ETW_HDR_FULL32: case ETW_HDR_FULL64:
    rc = decode_classic(r, size, 0x30, ev, why);
    break;
  case ETW_HDR_INSTANCE32: case ETW_HDR_INSTANCE64:
    rc = decode_classic(r, size, 0x48, ev, why);
    break;
  case ETW_HDR_EVENT_HEADER32: case ETW_HDR_EVENT_HEADER64:
    rc = decode_event_header(r, size, ev, why);
    break;
  default:
    rc = decode_message(r, size, ev, why);
    break;
  }
  if (rc)
    return rc;
  switch (ev->header_type) {
  case ETW_HDR_SYSTEM32: case ETW_HDR_COMPACT32: case ETW_HDR_PERFINFO32:
  case ETW_HDR_FULL32: case ETW_HDR_INSTANCE32: case ETW_HDR_EVENT_HEADER32:
    ev->pointer_size = 4;
    break;
  default:
    ev->pointer_size = 8; /* MESSAGE does not say: assume the 64-bit form */
    break;
  }
  ev->raw = r;
  ev->raw_size = size;
  ev->offset_in_buffer = pos;
  /* Every record starts 8-byte aligned from the buffer start. */
  *next = pos + ((size + 7u) & ~7u);
  if (*next < pos + size) /* cannot happen with 16-bit sizes; keep it obvious */
    return corrupt(why, "event size overflows");
  return ETL_DECODE_EVENT;
}

int etl_decode_peek_timestamp(const uint8_t *buf, uint32_t end, uint32_t pos, uint64_t *ts)
{
  const uint8_t *r;
  uint32_t marker, at;
  uint8_t flags, type;
  if (pos >= end || end - pos < 4)
    return ETL_DECODE_END;
  r = buf + pos;
  marker = etl_le32(r);
  if (marker == 0xFFFFFFFFu)
    return ETL_DECODE_END;
  flags = (uint8_t)(marker >> 24);
  type = (uint8_t)(marker >> 16);
  if (flags == FLAGS_HEADER && (type == ETW_HDR_PERFINFO32 || type == ETW_HDR_PERFINFO64)) {
    at = 8;
  } else if (flags == FLAGS_MESSAGE || (flags == FLAGS_HEADER && type == ETW_HDR_MESSAGE)) {
    uint16_t opt;
    if (end - pos < 8)
      return ETL_PEEK_NO_TIMESTAMP;
    opt = etl_le16(r + 6);
    if (!(opt & 0x08))
      return ETL_PEEK_NO_TIMESTAMP;
    at = 8 + ((opt & 0x01) ? 4u : 0u) + ((opt & 0x04) ? 4u : (opt & 0x02) ? 16u : 0u);
  } else if (flags == FLAGS_HEADER) {
    at = 16; /* SYSTEM, COMPACT, FULL, INSTANCE, EVENT_HEADER */
  } else {
    return ETL_PEEK_NO_TIMESTAMP;
  }
  if (end - pos < at + 8)
    return ETL_PEEK_NO_TIMESTAMP;
  *ts = etl_le64(r + at);
  return ETL_PEEK_TIMESTAMP;
}
