#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# untrusted.sh — a stand-in for code you did not write. Under osb-isolate's
# strict policy every probe below is refused or sees nothing, whoever runs
# osb-isolate (root included: its sandboxes run as host ids that belong to no
# account, never as root).
echo "whoami:        $(whoami) (uid $(id -u))"
echo "hostname:      $(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
echo "processes:     $(ls /proc | grep -c '^[0-9]') visible"
echo "interfaces:    $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
printf 'write /usr:    '; (touch /usr/pwned 2>&1 && echo "WRITTEN") | head -n1
printf 'read shadow:   '; (head -c 20 /etc/shadow >/dev/null 2>&1 && echo "READABLE") || echo "refused"
# The value it holds already: even where this succeeded, nothing would change.
printf 'sysctl write:  '
v=$(cat /proc/sys/kernel/printk_ratelimit_burst 2>/dev/null)
(echo "$v" > /proc/sys/kernel/printk_ratelimit_burst) 2>/dev/null && echo "WRITTEN" || echo "refused"
# The workspace is a host directory: nosuid guards only the inside, and a
# setuid file left there would run on the host with the sandbox's ids.
printf 'setuid plant:  '
if cp /bin/sh ./.plant 2>/dev/null && chmod 4755 ./.plant 2>/dev/null; then
	echo "PLANTED (a setuid file in the workspace, which is setuid on the host too)"
else
	echo "refused"
fi
rm -f ./.plant
echo "init env:      $( (tr '\0' ' ' < /proc/1/environ) 2>/dev/null || echo "unreadable (another uid's process)")"
printf 'secrets:       '; env | grep -c -E 'TOKEN|SECRET|PASSWORD' || true
printf 'mount:         '; (mount -t tmpfs none /tmp 2>&1 || true) | head -n1
echo "workspace:     $(pwd) (writable: $(touch .probe 2>/dev/null && rm -f .probe && echo yes || echo no))"
