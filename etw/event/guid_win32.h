/* A Windows GUID and etwcap's struct etw_guid (guid.h), one into the other:
 * the same four fields (Data1..Data4 of guiddef.h), so a copy field by
 * field, whatever the host's layout.  Only *_win32.c files include this. */
#ifndef ETWCAP_GUID_WIN32_H
#define ETWCAP_GUID_WIN32_H

#include "src/base/os/compat_win32.h"

#include "etw/event/guid.h"

#include <string.h>

static inline GUID guid_to_win32(const struct etw_guid *g)
{
  GUID out;
  out.Data1 = g->data1;
  out.Data2 = g->data2;
  out.Data3 = g->data3;
  memcpy(out.Data4, g->data4, sizeof(out.Data4));
  return out;
}

static inline struct etw_guid guid_from_win32(const GUID *g)
{
  struct etw_guid out;
  out.data1 = g->Data1;
  out.data2 = g->Data2;
  out.data3 = g->Data3;
  memcpy(out.data4, g->Data4, sizeof(out.data4));
  return out;
}

#endif
