#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright The osb-isolate authors
# leakprobe.sh — run inside a sandbox: what of the host does the sandbox see?
# One line per item, "ITEM STATUS [DETAIL]", STATUS one of
#   absent       not there at all
#   synthesized  there, with content made for the sandbox (not the host's)
#   masked       there, but empty or unreadable by construction (/dev/null)
#   private      there, the sandbox's own (an empty tmpfs)
#   LEAK         the host's own, readable
# The driver (view-suite.sh) decides which statuses it accepts per item. It
# passes what the sandbox cannot know of the host as KEY=VALUE arguments
# (a policy's environment may pass none of them):
#   HOST_HOSTNAME   the host's name
#   HOST_UID        the caller's uid on the host
#   HOST_HOSTS_SUM  sha256 of the host's /etc/hosts
#   HOST_MACHINE_ID_SUM, HOST_CMDLINE_SUM  sha256 of /etc/machine-id, /proc/cmdline
#   MARKER          a world-readable file planted on the host (repeatable)
# POSIX sh and coreutils only: the probe must run in the narrowest view.

HOST_HOSTNAME= HOST_UID=0 HOST_HOSTS_SUM= HOST_MACHINE_ID_SUM= HOST_CMDLINE_SUM= MARKERS=
for a in "$@"; do
	case "$a" in
	HOST_HOSTNAME=*) HOST_HOSTNAME=${a#*=} ;;
	HOST_UID=*) HOST_UID=${a#*=} ;;
	HOST_HOSTS_SUM=*) HOST_HOSTS_SUM=${a#*=} ;;
	HOST_MACHINE_ID_SUM=*) HOST_MACHINE_ID_SUM=${a#*=} ;;
	HOST_CMDLINE_SUM=*) HOST_CMDLINE_SUM=${a#*=} ;;
	MARKER=*) MARKERS="$MARKERS${a#*=}
" ;;
	*) echo "leakprobe.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done

sum() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }

# A file the host has and the sandbox must not read: absent, or masked
# (/dev/null, an empty file, unreadable), or LEAK.
masked_file() { # item path
	if [ ! -e "$2" ] && [ ! -L "$2" ]; then
		echo "$1 absent"
	elif [ -c "$2" ] && [ "$(stat -c %t:%T "$2")" = "1:3" ]; then
		echo "$1 masked /dev/null"
	elif [ -f "$2" ] && [ ! -s "$2" ]; then
		echo "$1 masked empty"
	else
		echo "$1 LEAK $(stat -c '%F %s bytes' "$2" 2>/dev/null)"
	fi
}

# A file whose host content identifies the host: absent, masked, or content
# that differs from the host's (synthesized), else LEAK.
host_file() { # item path host-sum
	if [ ! -e "$2" ]; then
		echo "$1 absent"
	elif [ -c "$2" ] || ! cat "$2" >/dev/null 2>&1 || [ -z "$(cat "$2")" ]; then
		echo "$1 masked"
	elif [ "$(sum "$2")" = "$3" ]; then
		echo "$1 LEAK the host's content"
	else
		echo "$1 synthesized"
	fi
}

# Host directories holding other users' data.
for d in /home /root /srv /opt /mnt /media; do
	if [ ! -e "$d" ]; then
		echo "dir:$d absent"
	else
		echo "dir:$d LEAK $(ls -A "$d" 2>/dev/null | tr '\n' ' ')"
	fi
done
if [ ! -e /var ]; then
	echo "dir:/var absent"
elif [ "$(ls -A /var)" = "tmp" ]; then
	echo "dir:/var private only tmp"
else
	echo "dir:/var LEAK $(ls -A /var | tr '\n' ' ')"
fi
if [ ! -e /var/tmp ]; then
	echo "dir:/var/tmp absent"
elif [ -z "$(ls -A /var/tmp)" ] && [ "$(stat -f -c %T /var/tmp)" = "tmpfs" ]; then
	echo "dir:/var/tmp private"
else
	echo "dir:/var/tmp LEAK $(ls -A /var/tmp | head -n 5 | tr '\n' ' ')"
fi
printf '%s' "$MARKERS" | while read -r m; do
	[ -n "$m" ] || continue
	if [ -e "$m" ]; then echo "marker:$m LEAK"; else echo "marker:$m absent"; fi
done

# /etc: the identity the sandbox claims, and the host's that contradicts it.
if [ ! -e /etc/hostname ]; then
	echo "etc:hostname absent"
elif [ "$(cat /etc/hostname)" = "$(hostname)" ] && [ "$(hostname)" != "$HOST_HOSTNAME" ]; then
	echo "etc:hostname synthesized $(cat /etc/hostname)"
else
	echo "etc:hostname LEAK $(cat /etc/hostname)"
fi
if [ -e /etc/hosts ] && grep -qw -- "$HOST_HOSTNAME" /etc/hosts; then
	echo "etc:hosts LEAK names $HOST_HOSTNAME"
else
	host_file etc:hosts /etc/hosts "$HOST_HOSTS_SUM"
fi
if [ "$(grep -c . /etc/passwd)" -le 3 ]; then
	echo "etc:passwd synthesized"
else
	echo "etc:passwd LEAK $(grep -c . /etc/passwd) entries"
fi
for f in passwd- group- shadow shadow- gshadow gshadow- subuid subuid- subgid subgid-; do
	masked_file "etc:$f" "/etc/$f"
done
host_file etc:machine-id /etc/machine-id "$HOST_MACHINE_ID_SUM"

# /sys: the host's devices, network interfaces and their counters.
if [ ! -e /sys/class/net ]; then
	echo "sys:class-net absent"
else
	echo "sys:class-net LEAK $(ls /sys/class/net | tr '\n' ' ')"
fi
for f in address statistics/rx_bytes; do
	if [ -r "/sys/class/net/eth0/$f" ]; then
		echo "sys:eth0-$(basename $f) LEAK $(cat "/sys/class/net/eth0/$f")"
	else
		echo "sys:eth0-$(basename $f) absent"
	fi
done

# /proc entries that describe the host rather than the sandbox.
host_file proc:cmdline /proc/cmdline "$HOST_CMDLINE_SUM"
if [ -c /proc/loadavg ] || ! cat /proc/loadavg >/dev/null 2>&1 || [ -z "$(cat /proc/loadavg)" ]; then
	echo "proc:loadavg masked"
else
	# The fourth field counts every task on the host ("running/total").
	total=$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f2)
	if [ "$total" -le "$(ls /proc | grep -c '^[0-9]')" ]; then
		echo "proc:loadavg synthesized $(cat /proc/loadavg)"
	else
		echo "proc:loadavg LEAK $(cat /proc/loadavg)"
	fi
fi

# The mount table: host mounts outside the view, and a host tmpfs carrying
# the caller's uid in its options (/run/user/UID). The sandbox's own tmpfs
# mounts show the uid that made them (a user namespace's owner, which its
# uid_map names anyway): those are the view's, not the host's.
n=$(grep -c . /proc/self/mountinfo)
hostmnt=$(cut -d' ' -f5 /proc/self/mountinfo |
	grep -E '^/(sys|home|root|srv|opt|mnt|media|boot|var/(lib|log|cache|run|spool))(/|$)' | tr '\n' ' ')
if [ -n "$hostmnt" ]; then
	echo "mounts:host LEAK $n mounts, $hostmnt"
else
	echo "mounts:host absent $n mounts"
fi
own='^(/|/dev|/dev/shm|/tmp|/run|/var/tmp|/proc/.*)$'
if [ "${HOST_UID:-0}" -ne 0 ] &&
	grep -E " - tmpfs .*[ ,]uid=$HOST_UID(,|$)" /proc/self/mountinfo | cut -d' ' -f4,5 |
	grep -vE "^/(newroot|bindfile)" | cut -d' ' -f2 | grep -vqE "$own"; then
	echo "mounts:caller-uid LEAK"
else
	echo "mounts:caller-uid absent"
fi

# Unix sockets: only the sandbox's own may exist (none before it makes any).
socks=$(find / -path /proc -prune -o -type s -print 2>/dev/null | tr '\n' ' ')
if [ -n "$socks" ]; then
	echo "sockets LEAK $socks"
else
	echo "sockets absent"
fi
