/* The images `etwcap report` lists under "Symbols ready?": each file name
 * the kernel's Image events logged (Load, Unload, DCStart, DCEnd), with
 * how many of its events came after one of KernelTraceControl's identity
 * events (ImageID, DbgID_RSDS): whether its symbols can be found on
 * another machine.  Memory is bounded: past REPORT_MAX_IMAGES names, the
 * events of new ones are counted as dropped. */
#ifndef ETWCAP_REPORT_IMAGES_H
#define ETWCAP_REPORT_IMAGES_H

#include "etw/image/image_identity.h"
#include "src/report/report_idmap.h"

#include <stddef.h>
#include <stdint.h>

#define REPORT_MAX_IMAGES 16384
#define REPORT_IMAGE_NAME_MAX 520

/* The counts are 32-bit, to keep an entry in 40 bytes: they would wrap
 * only after 2^32 events of one file, some 800 GB of image events. */
struct report_image {
  char *name;         /* file name as the kernel logged it (UTF-8), after report_images_finish */
  uint8_t *raw;       /* ... its UTF-16 bytes until then, to find it again */
  uint64_t hash;      /* of raw */
  uint32_t raw_size;  /* < 64 KiB: an event's payload */
  uint32_t events;    /* Image Load/DCStart/DCStop/Unload events */
  uint32_t with_id;   /* ... preceded by an ImageID event */
  uint32_t with_pdb;  /* ... preceded by a DbgID_RSDS/ILRSDS (PDB signature) */
};

struct report_images {
  struct report_image *list; /* sorted by name after report_images_finish */
  size_t count, cap;
  uint64_t dropped;          /* events of images past REPORT_MAX_IMAGES */
  struct report_idmap by_hash; /* name hash -> index in list */
  uint64_t *by_key;            /* see report_images.c's file_key */
};

/* 0 or ETWCAP_E_NOMEM. */
int report_images_init(struct report_images *s);
void report_images_release(struct report_images *s);
/* Counts one image event (img as image_identity_parse_image_fields leaves
 * it; its name's length may be measured), with_id and with_pdb: whether
 * identity events came just before it.  0 or ETWCAP_E_NOMEM. */
int report_images_count(struct report_images *s, struct image_event *img, int with_id,
                        int with_pdb);
/* Names the images in UTF-8 and sorts them by name: 0, or ETWCAP_E_NOMEM.
 * No more events after it. */
int report_images_finish(struct report_images *s);

#endif
