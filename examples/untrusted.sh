#!/bin/sh
# untrusted.sh — a stand-in for code you did not write. Under osb-isolate's
# strict policy every probe below is expected to be refused or to see nothing.
echo "whoami:        $(whoami) (uid $(id -u))"
echo "hostname:      $(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
echo "processes:     $(ls /proc | grep -c '^[0-9]') visible"
echo "interfaces:    $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
printf 'write /usr:    '; (touch /usr/pwned 2>&1 && echo "WRITTEN") | head -n1
printf 'read shadow:   '; (head -c 20 /etc/shadow >/dev/null 2>&1 && echo "READABLE") || echo "refused"
printf 'secrets:       '; env | grep -c -E 'TOKEN|SECRET|PASSWORD' || true
printf 'mount:         '; (mount -t tmpfs none /tmp 2>&1 || true) | head -n1
echo "workspace:     $(pwd) (writable: $(touch .probe 2>/dev/null && rm -f .probe && echo yes || echo no))"
