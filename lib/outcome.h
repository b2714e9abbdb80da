/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* outcome.h — the one epilogue of a result (outcome.c), shared by osb_run
 * (run.c) and osb_session_run (session.c), so that a timeout, a signal and
 * a setup failure read the same whichever ran the command.
 */
#ifndef OSB_OUTCOME_H
#define OSB_OUTCOME_H

#include "result.h"

/* Finish RES for a run that began at START_MS (now_ms()) and returned R (0
 * or negative): duration, error flag, the timeout's normal form (timed out,
 * no signal: the kill was ours), the hint; then hand RES to *OUT (or free
 * it) and copy its error to ERR. Returns 0 or the negative OSB_E_* code. */
int outcome_finish(osb_result *res, uint64_t start_ms, int r, osb_result **out, osb_error *err);

#endif /* OSB_OUTCOME_H */
