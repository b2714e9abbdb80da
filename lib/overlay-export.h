/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* overlay-export.h — an overlay session's changes as a tar stream
 * (overlay-export.c, through libarchive), for osb_session_export().
 */
#ifndef OSB_OVERLAY_EXPORT_H
#define OSB_OVERLAY_EXPORT_H

#include "osb-isolate.h"

/* Write the changes D of the upper directory UPPER_FD to FD as a pax tar
 * stream (deletions as ".wh." entries). Refused before anything is written
 * when D holds a socket, a device or a ".wh." name (-OSB_E_PATH). 0 or
 * -OSB_E_* with ERR filled. */
int ovl_export(int upper_fd, const osb_diff *d, int fd, osb_error *err);

#endif /* OSB_OVERLAY_EXPORT_H */
