#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# execd-go-race.sh — examples/execd-go built with `go build -race` and run as
# root and as the test user: any data race in the Go side of the binding
# (goroutines sharing a session, streaming, the session's owner thread) ends
# the program with a race report, which fails the test. If this Go toolchain
# cannot build with -race here, the test fails and says why; it never skips.
exec bash "$OSB_SRCDIR/tests/integration/execd-go.sh" --race
