/* SPDX-License-Identifier: Apache-2.0 */
/* Copyright The osb-isolate authors */
/* dlversion.c — the shared library a program loads at run time is the one
 * its header describes: dlopen() the built libosb-isolate.so.0 (by its
 * soname, from $OSB_BUILDDIR/.libs), look osb_version() up with dlsym()
 * (this program does not link the library, so nothing else can answer),
 * and compare it with OSB_ISOLATE_VERSION and with
 * OSB_VERSION_MAJOR.OSB_VERSION_MINOR.OSB_VERSION_PATCH of the header, and
 * with the package version configure.ac declares (PACKAGE_VERSION).
 * Exit 0 when all four agree, 1 otherwise (saying what differs).
 */
#include "osb-isolate.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

int main(void)
{
	const char *dir = getenv("OSB_BUILDDIR");
	const char *macros = STR(OSB_VERSION_MAJOR) "." STR(OSB_VERSION_MINOR) "."
	                     STR(OSB_VERSION_PATCH);
	const char *(*version)(void);
	const char *got;
	char path[4096];
	void *h;

	if (!dir) {
		fputs("FAIL: OSB_BUILDDIR must point at the build tree (make check sets it)\n", stderr);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/.libs/libosb-isolate.so.0", dir);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "FAIL: dlopen %s: %s\n", path, dlerror());
		return 1;
	}
	*(void **)&version = dlsym(h, "osb_version");
	if (!version) {
		fprintf(stderr, "FAIL: %s exports no osb_version: %s\n", path, dlerror());
		return 1;
	}
	got = version();
	if (!got || strcmp(got, OSB_ISOLATE_VERSION) != 0 || strcmp(got, macros) != 0 ||
	    strcmp(got, PACKAGE_VERSION) != 0) {
		fprintf(stderr, "FAIL: osb_version() = \"%s\"; the header says \"%s\" (%s), "
		        "configure.ac \"%s\"\n", got ? got : "(null)", OSB_ISOLATE_VERSION, macros,
		        PACKAGE_VERSION);
		return 1;
	}
	printf("ok - %s: osb_version() = \"%s\" = OSB_ISOLATE_VERSION = %s\n", path, got, macros);
	dlclose(h);
	return 0;
}
