/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* caps-overlay-ops.h — what can be done with an overlay session's layer
 * here (caps-overlay-ops.c): the capabilities items "diff_supported",
 * "commit_supported" and "persist", judged from the "overlay" item.
 */
#ifndef OSB_CAPS_OVERLAY_OPS_H
#define OSB_CAPS_OVERLAY_OPS_H

#include "caps.h"

/* Set the three items of C from its "overlay" item (judged before). */
void caps_judge_overlay_ops(osb_caps *c);

#endif
