#ifndef CARCHIVE_H
#define CARCHIVE_H
/* libarchive's API, as Debian's libarchive-dev declares it. The functions themselves are
 * trampolines in LibArchiveLoader.c: libarchive.so.13 (and libxml2, ICU, nettle, liblzma ...
 * that it pulls in) is loaded on the first archive_*_new call, not at every process start. */
#include <archive.h>
#include <archive_entry.h>

/* Why libarchive could not be loaded (dlopen's or dlsym's message), or NULL when it is
 * (loading it if need be). The archive_*_new functions return NULL when it can't be. */
const char *carchive_load_failure(void);

#if defined(__linux__)
#include <sched.h>
/* Secure extraction runs libarchive's disk writer on a thread with a working directory of
 * its own (unshare(CLONE_FS)), so entry names stay relative and
 * ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS can be on. <sched.h> declares unshare(2) only
 * under _GNU_SOURCE, which Swift's Glibc module is not built with. */
extern int unshare(int __flags);
static const int carchive_clone_fs = 0x00000200; /* CLONE_FS */

#include <stdio.h>
/* Moving extracted files into place must never replace anything: renameat2(2) with
 * RENAME_NOREPLACE, declared by <stdio.h> only under _GNU_SOURCE. */
extern int renameat2(int __olddirfd, const char *__oldpath, int __newdirfd, const char *__newpath,
                     unsigned int __flags);
static const unsigned int carchive_rename_noreplace = 1; /* RENAME_NOREPLACE */
#endif

#endif
